/**
 * How a tool call waiting for approval is shown to the person deciding it: every field of its input,
 * the command whole (what runs is what was read), long text as a preview that says what was left out,
 * and control characters made visible so the model cannot hide part of the call with terminal escapes.
 */

/** Fields shown whole however long: the shell command is the thing being approved. */
const NEVER_CUT = new Set(['command']);
const PREVIEW_LINES = 20;
const PREVIEW_CHARS = 2_000;

export function describeCall(tool: string, input: unknown): string[] {
  const lines = [`tool: ${visible(tool)}`];
  if (!input || typeof input !== 'object' || Array.isArray(input)) return [...lines, `input: ${visible(JSON.stringify(input) ?? '')}`];
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (typeof value !== 'string') lines.push(`${visible(key)}: ${visible(JSON.stringify(value) ?? 'undefined')}`);
    else if (!value.includes('\n') && (value.length <= PREVIEW_CHARS || NEVER_CUT.has(key)))
      lines.push(`${visible(key)}: ${visible(value)}`);
    else lines.push(...block(key, value));
  }
  return lines;
}

/** Multi-line or long text: indented under its field name, cut to a preview unless it must be whole. */
function block(key: string, value: string): string[] {
  const all = value.split('\n');
  const whole = NEVER_CUT.has(key);
  const shown: string[] = [];
  let chars = 0;
  let lineCut = false;
  for (const line of all) {
    if (!whole && (shown.length >= PREVIEW_LINES || chars >= PREVIEW_CHARS)) break;
    const room = whole ? line.length : PREVIEW_CHARS - chars;
    lineCut = line.length > room;
    shown.push(lineCut ? `${line.slice(0, room)}…` : line);
    chars += line.length + 1;
  }
  const header = `${visible(key)} (${all.length} line${all.length === 1 ? '' : 's'}, ${value.length} characters):`;
  const rest = all.length - shown.length;
  const cut = rest > 0 ? [`  … ${rest} more line${rest === 1 ? '' : 's'} not shown`] : lineCut ? ['  … the rest not shown'] : [];
  return [header, ...shown.map((l) => `  | ${visible(l)}`), ...cut];
}

/**
 * Control characters (C0 but tab, DEL, C1) and invisible format characters (zero-width, bidi
 * overrides and isolates, BOM) as `\u{…}`: they could move the cursor, recolour or reorder text.
 */
export function visible(text: string): string {
  let shown = '';
  for (const c of text) shown += hidden(c.codePointAt(0)!) ? `\\u{${c.codePointAt(0)!.toString(16).padStart(4, '0')}}` : c;
  return shown;
}

const HIDDEN_RANGES: readonly [number, number][] = [
  [0x00, 0x08],
  [0x0a, 0x1f],
  [0x7f, 0x9f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x2069],
  [0xfeff, 0xfeff],
];

function hidden(code: number): boolean {
  return HIDDEN_RANGES.some(([from, to]) => code >= from && code <= to);
}

/** `expires 07:12:03 UTC (in 10 min)`, or `expired` once past. */
export function describeExpiry(expiresAt: string, now = Date.now()): string {
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return 'expiry unknown';
  const left = at - now;
  const clock = new Date(at).toISOString().slice(11, 19);
  if (left <= 0) return `expired at ${clock} UTC`;
  const span = left >= 90_000 ? `${Math.round(left / 60_000)} min` : `${Math.max(1, Math.round(left / 1000))} s`;
  return `expires ${clock} UTC (in ${span})`;
}

/** The commands that decide an approval from another terminal. */
export function decideCommands(id: string): string[] {
  return [`nestclaw approvals approve ${id}`, `nestclaw approvals approve ${id} --remember`, `nestclaw approvals deny ${id}`];
}
