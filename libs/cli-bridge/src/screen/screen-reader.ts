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
export const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⣾⣽⣻⢿⡿⣟⣯⣷]|esc to interrupt/i;

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
/** A CLI's empty input line (`> `, `❯`, `$`, maybe framed `│ ❯ │`). */
const INPUT_PROMPT = /^[\s│┃]*[>❯›$%#]\s*[│┃]?\s*$/;
/** `❯ 1. Yes`, `  2. No`, `> 3. Other`, `● 1. Allow once`: an option, the cursor marking the highlighted one. */
const OPTION = /^\s*([❯>›▶●]?)\s*(\d)[.)]\s+(.+?)\s*$/;
/** A dialog's side borders (`│ … │`, nested too): a framed menu (Gemini CLI's) is read without them. */
const SIDE_BORDERS = /^(\s*[│┃]\s?)+|(\s*[│┃])+\s*$/g;
/** A frame's top, bottom or a rule across it: no words in it. */
const BORDER_ONLY = /^[\s│┃╭╮╰╯─━═┌┐└┘]*$/;
/** A dialog's top-left corner: where a framed question starts. */
const FRAME_TOP = /^\s*[╭┌]/;
export const unframe = (line: string) => line.replace(SIDE_BORDERS, '');

/**
 * A question the CLI waits on, found in the screen's last lines (at or after `from`): a `[y/N]`
 * style prompt on one of the last lines, or a numbered menu with a cursor. `text` is the whole
 * question as shown (the lines above it up to a blank line, the options, the hint).
 */
export function findPrompt(screen: string[], from = 0): ScreenPrompt | undefined {
  const lines = screen.map(unframe);
  const tail = Math.max(from, lines.length - 12);
  for (let i = lines.length - 1; i >= Math.max(from, lines.length - 3); i--) {
    // An empty input prompt below it: the CLI printed the words (its answer, a file) and waits for a message, not a y/n.
    if (INPUT_PROMPT.test(screen[i])) break;
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
    else if (BORDER_ONLY.test(screen[i])) continue;
    else if (!/esc to cancel|enter to (select|confirm)|↑|↓/i.test(lines[i])) return undefined;
  }
  if (options.length < 2 || cursor < 0) return undefined;
  const first = end - options.length + 1;
  const idx = options.findIndex((o) => o.digit === cursor);
  const text = framedBlock(screen, first, end, from) ?? block(lines, first, lines.length - 1, from);
  return { kind: 'menu', text, end: lines.length - 1, options, cursor: idx };
}

/**
 * A question drawn in a dialog (Gemini CLI frames its own: the tool, the command, the question, the
 * options) is the whole dialog, so its approval shows the command and not only "Allow execution?".
 */
function framedBlock(screen: string[], first: number, last: number, from: number): string | undefined {
  if (!/^\s*[│┃]/.test(screen[first])) return undefined;
  for (let i = first - 1; i >= Math.max(from, first - 30); i--) {
    if (!FRAME_TOP.test(screen[i])) continue;
    return screen
      .slice(i + 1, last + 1)
      .filter((l) => !BORDER_ONLY.test(l))
      .map((l) => unframe(l).trimEnd())
      .join('\n')
      .trim();
  }
  return undefined;
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
export const CHROME = /^[\s─━│┃┌┐└┘├┤┬┴┼╭╮╰╯═║╔╗╚╝-]*$|^\s*[>❯$%#]\s*$/;
/** An input line as a CLI echoes it: after a prompt marker, maybe inside a frame (`│ > hi`, `❯ hi`). */
const PROMPT_MARK = /^[\s│┃]*[>❯›$%#]\s?/;
/** A frame line that starts a CLI's input area (Claude Code draws `────` above its `❯` prompt). */
const RULE = /^\s*[─━═╌-]{3,}\s*$/;
export const EMPTY_PROMPT = /^[\s│┃]*[>❯›]\s*[│┃]?\s*$/;
/** A finished-work summary a CLI prints under its answer (`✻ Worked for 3s`). */
export const SUMMARY = /^\s*[✻✽✶✳✢]\s/;

/**
 * The lines the CLI wrote since the input, the echo left out: from where the input was echoed (its
 * last echo on a prompt line; else the lines after the screen as it was before). `echoed`: the echo
 * was found, so nothing here can be the input as typed.
 */
export function linesSince(before: string[], after: string[], input: string): { lines: string[]; echoed: boolean } {
  const echo = input.split('\n').map((l) => l.trimEnd());
  // The input is typed on the last line of the screen before it (the prompt), so the answer starts there.
  const start = Math.max(0, before.length - 1);
  // A CLI that scrolls leaves the screen above its prompt as it was: the echo is the first one from the
  // prompt on, so a line the CLI prints later that looks like it (`> <input>` in a quote or a file it
  // shows) cannot cut the answer. A full-screen CLI redraws in place: its last echo is the one.
  const scrolls = samePrefix(before.slice(0, start), after);
  const echoed = scrolls ? firstEcho(after, echo[0], start) : lastEcho(after, echo[0]);
  let fresh: string[];
  if (echoed >= 0) fresh = after.slice(echoed);
  else fresh = scrolls ? after.slice(start) : after.slice(-Math.max(1, after.length - start));
  let i = 0;
  while (i < echo.length && i < fresh.length && fresh[i].trimEnd().endsWith(echo[i])) i++;
  return { lines: fresh.slice(i), echoed: echoed >= 0 };
}

/** The CLI's input area under what it wrote: a rule above an empty prompt (and the status bar under it), or -1. */
export function inputAreaAt(lines: string[]): number {
  return lines.findIndex((l, k) => RULE.test(l) && k + 1 < lines.length && EMPTY_PROMPT.test(lines[k + 1]));
}

/**
 * What the CLI wrote since the input (`linesSince`), minus the CLI's redrawn input area below the
 * answer, the spinner, the finished-work summary and the chrome.
 */
export function answerSince(before: string[], after: string[], input: string): string {
  let body = linesSince(before, after, input).lines.filter((l) => !SPINNER.test(l));
  const inputArea = inputAreaAt(body);
  if (inputArea >= 0) body = body.slice(0, inputArea);
  // A summary line closes the answer: what follows it (status lines above the input area) is the CLI's.
  const summary = body.findIndex((l) => SUMMARY.test(l));
  if (summary >= 0) body = body.slice(0, summary);
  while (body.length && (CHROME.test(body[body.length - 1]) || SUMMARY.test(body[body.length - 1]))) body.pop();
  while (body.length && CHROME.test(body[0])) body.shift();
  return body.join('\n').trim();
}

/** Whether `line` shows `first` (the input's first line) typed after a prompt marker. */
function isEcho(line: string, first: string): boolean {
  const m = PROMPT_MARK.exec(line);
  return !!m && !!first.trim() && line.slice(m[0].length).trimEnd() === first.trim();
}

/** The last line that echoes `first`, or -1. */
export function lastEcho(lines: string[], first: string): number {
  for (let i = lines.length - 1; i >= 0; i--) if (isEcho(lines[i], first)) return i;
  return -1;
}

/** The first line at or after `from` that echoes `first`, or -1. */
function firstEcho(lines: string[], first: string, from: number): number {
  for (let i = from; i < lines.length; i++) if (isEcho(lines[i], first)) return i;
  return -1;
}

function samePrefix(prefix: string[], lines: string[]): boolean {
  return prefix.length <= lines.length && prefix.every((l, i) => lines[i] === l);
}
