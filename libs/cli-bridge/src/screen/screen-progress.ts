import { CHROME, EMPTY_PROMPT, linesSince, SPINNER, SUMMARY, unframe } from './screen-reader';

/** How much of the screen a progress view shows: the last few lines, each cut short. */
const MAX_LINES = 4;
const MAX_LINE = 160;
/** The hint a working CLI shows beside its spinner: `(12s · ↑ 1.2k tokens · esc to interrupt)`. */
const HINT = /\s*[([][^()[\]]*esc to (?:interrupt|cancel)[^()[\]]*[)\]]\s*$|\s*[·-]?\s*esc to (?:interrupt|cancel).*$/i;
// eslint-disable-next-line no-control-regex -- a control character left by a redraw must not reach a chat
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

const clean = (line: string) => {
  const text = unframe(line.replace(CONTROL, '')).trim();
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
};

/**
 * What the CLI is doing now, as a chat can show it: the last few lines it wrote since the echo of the
 * input, and its spinner line as the status (`⠋ Running npm test…`, the "esc to interrupt" hint
 * dropped). The echo, the chrome, the input area and the status bar under it never show; nothing
 * shows before the echo is on the screen (until then a line could be the input itself, half drawn).
 */
export function screenProgress(before: string[], after: string[], input: string): string | undefined {
  const { lines, echoed } = linesSince(before, after, input);
  if (!echoed) return undefined;
  // The input area (an empty prompt, framed or under a rule) and everything under it are the CLI's own.
  const area = lines.findIndex((l) => EMPTY_PROMPT.test(l));
  const body = area >= 0 ? lines.slice(0, area) : lines;
  const spinner = body.findLast((l) => SPINNER.test(l));
  // Back at its empty prompt with no spinner, the CLI has finished: its words are the answer, not progress.
  if (spinner === undefined && area >= 0) return undefined;
  const words = body
    .filter((l) => !SPINNER.test(l) && !SUMMARY.test(l) && !CHROME.test(l))
    .map(clean)
    .filter((l) => l && !/^[─━═╌-]+$/.test(l));
  const status = spinner === undefined ? '' : clean(spinner.replace(HINT, ''));
  const shown = [...words.slice(-MAX_LINES), ...(status ? [status] : [])];
  return shown.length ? shown.join('\n') : undefined;
}

/**
 * When a screen's progress is shown: after the screen changed, at most once per `everyMs`, and only
 * when the text differs from what was shown (a spinner turning redraws the screen, not the text).
 */
export class ProgressThrottle {
  private shown?: string;
  private at = -Infinity;
  private changed = false;

  constructor(private readonly everyMs = 1500) {}

  /** `changed`: the screen moved since the last poll. Returns the text to show now, if any. */
  next(changed: boolean, now: number, view: () => string | undefined): string | undefined {
    this.changed ||= changed;
    if (!this.changed || now - this.at < this.everyMs) return undefined;
    this.changed = false;
    const text = view();
    if (!text || text === this.shown) return undefined;
    [this.shown, this.at] = [text, now];
    return text;
  }
}
