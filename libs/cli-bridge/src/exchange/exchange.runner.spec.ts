import type { CliConfig } from '@nestclaw/config';
import type { CliHooks } from '../hooks/cli-hooks';
import type { PromptOutcome } from '../screen/prompt-keys';
import type { ScreenPrompt } from '../screen/screen-reader';
import type { TmuxDriver } from '../tmux/tmux.driver';
import { ExchangeRunner } from './exchange.runner';
import type { PromptApprovals } from './prompt-approvals';

const READY = 'fake-cli ready\n> ';
const MENU = `${READY}edit it ask-menu\nAllow edit to build.sh?\n❯ 1. Yes\n  2. No\nEsc to cancel`;

/**
 * A tmux whose screen is scripted: each capture returns the current screen, after `lag` ms (a loaded
 * host, where one poll comes later than `done_after`). Keys sent replace the screen with the CLI's reaction.
 */
function scriptedTmux(screens: { now: string; lag: number; onKeys: (keys: string[]) => void }) {
  const keysSent: string[][] = [];
  const tmux = {
    alive: async () => true,
    submit: async () => void (screens.now = MENU),
    capture: async () => {
      const shown = screens.now;
      await new Promise((r) => setTimeout(r, screens.lag));
      return shown;
    },
    keys: async (_: string, keys: string[]) => {
      keysSent.push(keys);
      screens.onKeys(keys);
    },
  };
  return { tmux: tmux as unknown as TmuxDriver, keysSent };
}

describe('ExchangeRunner', () => {
  const cfg = { done_after: 300, watchdog: 10_000 } as CliConfig;
  const scope = { cli: 'fake', sessionId: 's', exchangeId: 'e', channel: 'http', endpointId: 'x', onApproval: () => undefined };

  it('asks a question shown on the screen even when a poll comes later than done_after', async () => {
    const screens = {
      now: READY,
      lag: 450,
      onKeys: () => void (screens.now = `${READY}edit it ask-menu\nchoice: No\n> `),
    };
    const { tmux, keysSent } = scriptedTmux(screens);
    const asked: string[] = [];
    const prompts = {
      ask: async (p: ScreenPrompt): Promise<PromptOutcome> => (asked.push(p.text), 'deny'),
    } as unknown as PromptApprovals;

    const noHooks = { mark: () => undefined } as unknown as CliHooks;
    const result = await new ExchangeRunner(tmux, prompts, noHooks).run('nestclaw-fake-1', cfg, 'edit it ask-menu', scope);

    expect(asked).toEqual(['Allow edit to build.sh?\n❯ 1. Yes\n  2. No\nEsc to cancel']);
    expect(keysSent).toHaveLength(1);
    expect(result).toEqual({ kind: 'answer', text: 'choice: No' });
  }, 15_000);

  it('tells the chat what the screen shows since the echo while the CLI works, escapes and echo left out', async () => {
    const working = `${READY}run the tests\n\x1b[32mReading src/app.ts\x1b[0m\n\x1b[2K⠙ Thinking…`;
    const screens = { now: READY, lag: 0, onKeys: () => undefined };
    const { tmux } = scriptedTmux(screens);
    (tmux as unknown as { submit: () => Promise<void> }).submit = async () => {
      screens.now = working;
      setTimeout(() => (screens.now = `${READY}run the tests\nReading src/app.ts\nall 12 tests pass\n> `), 700);
    };
    const progress: string[] = [];
    const noHooks = { mark: () => undefined } as unknown as CliHooks;
    const result = await new ExchangeRunner(tmux, {} as PromptApprovals, noHooks).run('nestclaw-fake-1', cfg, 'run the tests', {
      ...scope,
      onProgress: (t) => progress.push(t),
    });

    expect(progress[0]).toBe('Reading src/app.ts\n⠙ Thinking…');
    expect(progress.join('\n')).not.toContain('\x1b');
    expect(progress.join('\n')).not.toContain('run the tests');
    expect(result).toEqual({ kind: 'answer', text: 'Reading src/app.ts\nall 12 tests pass' });
  }, 15_000);
});
