/**
 * Reading a CLI's terminal screen (capture-pane text): whether it is still working (a spinner),
 * whether it waits on a question (a [y/N] prompt or an arrow-key menu), and what it answered since
 * an input. Pure functions over text, so every rule here is a unit test.
 */

/** CSI (colours, cursor moves), OSC (titles, links) and the lone two-character escapes. */
// eslint-disable-next-line no-control-regex -- matching escape characters is the point
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '').replace(/\r(?!\n)/g, '');
}

/** The screen as lines, escapes gone, trailing spaces and the pane's empty bottom rows dropped. */
export function screenLines(screen: string): string[] {
  const lines = stripAnsi(screen)
    .split(/\r?\n/)
    .map((l) => l.trimEnd());
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  return lines;
}

/** Braille spinners (most Node CLIs), and the "esc to interrupt" hint CLIs show while they work. */
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⣾⣽⣻⢿⡿⣟⣯⣷]|esc to interrupt/i;

/** A spinner among the last few lines means the CLI is working, however quiet the rest of the screen is. */
export function hasSpinner(lines: string[]): boolean {
  return lines.slice(-4).some((l) => SPINNER.test(l));
}

export interface MenuOption {
  digit: number;
  label: string;
}

/** `end`: the prompt's last line; a prompt answered is looked for again only below it. */
export type ScreenPrompt =
  { kind: 'yes-no'; text: string; end: number } | { kind: 'menu'; text: string; end: number; options: MenuOption[]; cursor: number };

const YES_NO = /\[y\/n\]|\(y\/n\)|\[yes\/no\]|\(yes\/no\)/i;
/** `❯ 1. Yes`, `  2. No`, `> 3. Other`: an option, the cursor marking the highlighted one. */
const OPTION = /^\s*([❯>›▶]?)\s*(\d)[.)]\s+(.+?)\s*$/;

/**
 * A question the CLI waits on, found in the screen's last lines (at or after `from`): a `[y/N]`
 * style prompt on one of the last lines, or a numbered menu with a cursor. `text` is the whole
 * question as shown (the lines above it up to a blank line, the options, the hint).
 */
export function findPrompt(lines: string[], from = 0): ScreenPrompt | undefined {
  const tail = Math.max(from, lines.length - 12);
  for (let i = lines.length - 1; i >= Math.max(from, lines.length - 3); i--) {
    if (YES_NO.test(lines[i])) return { kind: 'yes-no', text: block(lines, i, i, from), end: i };
  }
  let end = -1;
  const options: MenuOption[] = [];
  let cursor = -1;
  for (let i = lines.length - 1; i >= tail; i--) {
    const m = OPTION.exec(lines[i]);
    if (m) {
      if (end < 0) end = i;
      options.unshift({ digit: Number(m[2]), label: m[3] });
      if (m[1]) cursor = Number(m[2]);
    } else if (end >= 0) break;
    else if (lines[i].trim() && !/esc to cancel|enter to (select|confirm)|↑|↓/i.test(lines[i])) return undefined;
  }
  if (options.length < 2 || cursor < 0) return undefined;
  const first = end - options.length + 1;
  const idx = options.findIndex((o) => o.digit === cursor);
  return { kind: 'menu', text: block(lines, first, lines.length - 1, from), end: lines.length - 1, options, cursor: idx };
}

/** Where the question a prompt belongs to starts: the lines above it, back to a blank line (at most 6). */
function blockStart(lines: string[], first: number, from: number): number {
  let s = first;
  while (s - 1 >= Math.max(from, first - 6) && lines[s - 1].trim() && !/^\s*[>❯$#%]\s/.test(lines[s - 1])) s--;
  return s;
}

function block(lines: string[], first: number, last: number, from: number): string {
  return lines
    .slice(blockStart(lines, first, from), last + 1)
    .join('\n')
    .trim();
}

/** The option a decision picks: approve → the first "Yes…", deny → the first "No…" (undefined: there is none, Esc instead). */
export function menuChoice(options: MenuOption[], decision: 'approve' | 'deny'): number | undefined {
  const want = decision === 'approve' ? /^(yes|allow|approve)\b/i : /^(no|deny|reject)\b/i;
  const i = options.findIndex((o) => want.test(o.label));
  return i < 0 ? undefined : i;
}

/** Lines that are the CLI's frame, not its answer: box drawing, an empty input prompt, a spinner. */
const CHROME = /^[\s─━│┃┌┐└┘├┤┬┴┼╭╮╰╯═║╔╗╚╝-]*$|^\s*[>❯$%#]\s*$/;

/**
 * What the CLI wrote since the input: the lines after the screen as it was before (`before`), minus
 * the echo of the input (the prompt line it was typed on and its other lines) and the chrome.
 */
export function answerSince(before: string[], after: string[], input: string): string {
  // The input is typed on the last line of the screen before it (the prompt), so the answer starts there.
  const start = Math.max(0, before.length - 1);
  const fresh = samePrefix(before.slice(0, start), after) ? after.slice(start) : after.slice(-Math.max(1, after.length - start));
  const echo = input.split('\n').map((l) => l.trimEnd());
  let i = 0;
  while (i < echo.length && i < fresh.length && fresh[i].trimEnd().endsWith(echo[i])) i++;
  const body = fresh.slice(i).filter((l) => !SPINNER.test(l));
  while (body.length && CHROME.test(body[body.length - 1])) body.pop();
  while (body.length && CHROME.test(body[0])) body.shift();
  return body.join('\n').trim();
}

function samePrefix(prefix: string[], lines: string[]): boolean {
  return prefix.length <= lines.length && prefix.every((l, i) => lines[i] === l);
}
