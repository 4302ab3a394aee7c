import { Injectable } from '@nestjs/common';
import type { CliConfig } from '@nestclaw/config';
import { keysFor } from '../screen/prompt-keys';
import { answerSince, findPrompt, hasSpinner, lastEcho, screenLines } from '../screen/screen-reader';
import { ProgressThrottle, screenProgress } from '../screen/screen-progress';
import { TmuxDriver } from '../tmux/tmux.driver';
import type { ExchangeResult, ExchangeScope } from './exchange.types';
import { PromptApprovals } from './prompt-approvals';
import { CliHooks } from '../hooks/cli-hooks';

/** How often the screen is read while a message is in flight. */
export const POLL_MS = 200;

/** How often, at most, what the screen shows is sent to the chat as progress. */
const PROGRESS_MS = 1500;

/** How long the screen of a CLI with working hooks must stay still before it, not the hook, ends the wait. */
const HOOKED_QUIET_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One message to a CLI and its answer, read from the screen: the text goes in as a paste and an Enter,
 * then the screen is read every 200 ms. A question that stays on the screen (a `[y/N]` prompt, a menu)
 * is asked as an approval and answered with the keys it needs; the CLI is done when the screen has
 * been quiet for `done_after`, shows no spinner and has something new to say. A screen quiet for
 * `watchdog` ends the wait with a report; a session that is gone ends it at once.
 */
@Injectable()
export class ExchangeRunner {
  constructor(
    private readonly tmux: TmuxDriver,
    private readonly prompts: PromptApprovals,
    private readonly hooks: CliHooks,
  ) {}

  /** Types `text` (after `beforeTyping` has been told where the screen stood) and reads its answer. */
  async run(
    session: string,
    cfg: CliConfig,
    text: string,
    scope: ExchangeScope,
    beforeTyping?: (mark: number) => Promise<void>,
  ): Promise<ExchangeResult> {
    const before = await this.read(session);
    if (!before) return { kind: 'dead' };
    await beforeTyping?.(before.length);
    const hookMark = this.hooks.mark(session, cfg);
    await this.type(session, text);
    return this.answer(session, cfg, text, before, scope, hookMark);
  }

  /**
   * After a restart, for a message the gateway was on (`mark`: the screen's line count before it was
   * typed): if its echo is on the screen below the mark, it was typed, so only its answer is read (the
   * CLI may have finished meanwhile, or still be working); if not, it never reached the CLI and is typed now.
   */
  async resume(session: string, cfg: CliConfig, text: string, mark: number, scope: ExchangeScope): Promise<ExchangeResult> {
    const lines = await this.read(session);
    if (!lines) return { kind: 'dead' };
    const before = lines.slice(0, mark);
    const typed = lastEcho(lines.slice(Math.max(0, mark - 1)), text.split('\n')[0]) >= 0;
    // A Stop its hook wrote while the gateway was down is not told from an older one: the screen decides then.
    const hookMark = this.hooks.mark(session, cfg);
    if (!typed) await this.type(session, text);
    return this.answer(session, cfg, text, before, scope, hookMark);
  }

  private async read(session: string): Promise<string[] | undefined> {
    return (await this.tmux.alive(session)) ? screenLines(await this.tmux.capture(session).catch(() => '')) : undefined;
  }

  private async type(session: string, text: string): Promise<void> {
    await this.tmux.submit(session, text);
  }

  private async answer(
    session: string,
    cfg: CliConfig,
    text: string,
    before: string[],
    scope: ExchangeScope,
    hookMark: number | undefined,
  ): Promise<ExchangeResult> {
    const read = () => this.read(session);
    let last = before.join('\n');
    let changedAt = Date.now();
    let stable = false;
    // A question counts only below the echo of this input (a full-screen CLI redraws in place, so the
    // screen need not grow), and one just answered is not asked again while it is still drawn.
    const firstLine = text.split('\n')[0];
    let answered: string | undefined;
    let progress: string | undefined;
    const fromScreen = new ProgressThrottle(PROGRESS_MS);
    for (;;) {
      await sleep(POLL_MS);
      if (scope.signal?.aborted) return { kind: 'answer', text: 'Stopped waiting for the CLI.' };
      const lines = await read();
      if (!lines) return { kind: 'dead' };
      const hooked = hookMark === undefined ? undefined : this.hooks.since(session, hookMark);
      // The CLI's own word that it finished (its Stop hook), with the answer as it wrote it.
      if (hooked?.stopped?.text) return { kind: 'answer', text: hooked.stopped.text };
      // The tool it reported starting (its PreToolUse / BeforeTool hook): the chat's preview.
      const doing = hooked?.progress;
      if (doing && doing !== progress) scope.onProgress?.((progress = doing));
      const now = lines.join('\n');
      // Without a hook's word, what the screen shows since the echo is the preview.
      const seen =
        progress || !scope.onProgress ? undefined : fromScreen.next(now !== last, Date.now(), () => screenProgress(before, lines, text));
      if (seen) scope.onProgress?.(seen);
      if (now !== last) {
        [last, changedAt, stable] = [now, Date.now(), false];
        continue;
      }
      const quietMs = Date.now() - changedAt;
      const working = hasSpinner(lines);
      // A prompt is read once it has stood still for one poll, so a half-drawn menu is never answered;
      // and the answer is not taken before the screen had that look for a prompt: on a loaded host one
      // poll can come later than `done_after`, and the question itself would be returned as the answer.
      const settled = stable;
      stable = true;
      const echoed = lastEcho(lines, firstLine);
      const shown = !working && settled ? findPrompt(lines, echoed >= 0 ? echoed + 1 : before.length) : undefined;
      const prompt = shown && shown.text !== answered ? shown : undefined;
      if (!shown) answered = undefined;
      if (prompt) {
        const outcome = await this.prompts.ask(prompt, scope, scope.onApproval);
        await this.tmux.keys(session, keysFor(prompt, outcome)).catch(() => undefined);
        answered = prompt.text;
        changedAt = Date.now();
        continue;
      }
      // A CLI whose hooks work (`live`) says when it is done; its quiet screen decides only after a long
      // pause (a turn it ended without its end event, e.g. a denied tool), not while it gets going:
      // Gemini CLI can sit still with the message in its input box for a second or two before it answers.
      const doneAfter = hooked?.live ? Math.max(cfg.done_after, HOOKED_QUIET_MS) : cfg.done_after;
      if (!working && settled && quietMs >= doneAfter) {
        const answer = answerSince(before, lines, text);
        // Only the echo on the screen: the CLI is still on it (or stuck: the watchdog says so).
        if (answer) return { kind: 'answer', text: answer };
      }
      if (quietMs >= cfg.watchdog) return { kind: 'silent', silentMs: quietMs };
    }
  }
}
