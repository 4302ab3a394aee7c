import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { telegramHtmlToText } from '@nestclaw/channel';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import { eventually } from '../../support/eventually';
import { describeWithHostTools, HostToolPaths } from '../../support/host-tools';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeGeminiServer } from '../../fixtures/fake-gemini.server';
import { FakeTelegramServer, FakeUser, SentMessage } from '../../fixtures/fake-telegram.server';

const alice: FakeUser = { id: 4712, first_name: 'Alice', username: 'alice' };

/** nestclaw's reporter, as a hook in Gemini CLI's own settings (README: "Drive your coding CLI from chat"). */
const reporter = {
  type: 'command',
  name: 'nestclaw',
  command: `'${process.execPath}' '${join(__dirname, '../../../bin/nestclaw-cli-hook.js')}' --json`,
  timeout: 10_000,
};

/** A shell command the fake Gemini API answers with as a function call (its `[tool:name {args}]` rule). */
const shell = (command: string) => `[tool:run_shell_command ${JSON.stringify({ command, description: 'Run it' })}]`;

/**
 * Issue 26 with a second real CLI: Gemini CLI from npm, started by the bridge in a real tmux against the
 * fake Gemini API (GOOGLE_GEMINI_BASE_URL). Its settings live in a HOME of its own (API-key auth, folder
 * trust off, a fixed model, so it makes one request per step, and nestclaw's hooks as the README has the
 * owner install them). What this proves: its AfterAgent hook gives the answer as written,
 * its BeforeTool hook reports the tool, and its framed permission dialog becomes an approval card that
 * shows the command. `.ci/run` installs Gemini CLI for the tests; without it the suite skips and says how.
 */
function geminiCli(tools: HostToolPaths) {
  let h: Harness;
  let tg: FakeTelegramServer;
  let gemini: FakeGeminiServer;
  let workDir: string;
  let geminiHome: string;
  let tmux: TmuxDriver;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    gemini = new FakeGeminiServer();
    // Each answer in one streamed chunk: Gemini CLI draws what it got, and a test reads it whole.
    gemini.tokenSize = 10_000;
    await gemini.start();
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-gemini-work-'));
    geminiHome = mkdtempSync(join(tmpdir(), 'nestclaw-gemini-home-'));
    mkdirSync(join(geminiHome, '.gemini'));
    writeFileSync(
      join(geminiHome, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
        model: { name: 'gemini-2.5-flash' },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        // nestclaw's hooks as the README has the owner add them: they report through NESTCLAW_CLI_HOOK_DIR,
        // which the bridge sets for the sessions it starts (a home under /tmp gets no system settings file).
        hooks: Object.fromEntries(['SessionStart', 'AfterAgent', 'BeforeTool', 'Notification'].map((e) => [e, [{ hooks: [reporter] }]])),
      }),
    );
    h = await startHarness({
      env: { NESTCLAW_TMUX_SOCKET: `nestclaw-gemini-${process.pid}` },
      config: {
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [String(alice.id)], poll_timeout: 1 },
        },
        clis: {
          gemini: {
            kind: 'gemini',
            command: tools['gemini-cli']!,
            env: { HOME: geminiHome, GEMINI_API_KEY: 'AIza-fake-gemini', GOOGLE_GEMINI_BASE_URL: gemini.url, NO_BROWSER: '1' },
            allowed_dirs: [workDir],
            done_after: '1500ms',
            watchdog: '60s',
          },
        },
      },
    });
    tmux = h.gateway.app.get(TmuxDriver);
  }, 60_000);
  afterAll(async () => {
    for (const s of (await tmux?.list()) ?? []) await tmux.kill(s);
    await h?.stop();
    await tg?.stop();
    await gemini?.stop();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(geminiHome, { recursive: true, force: true });
  });

  const texts = (from: number) =>
    tg
      .sentTo(alice.id)
      .slice(from)
      .map((m) => telegramHtmlToText(m.current));
  /** The first approval card since message `from` (Gemini CLI redraws slowly on a loaded 2-core runner). */
  const card = (from: number) =>
    tg
      .waitFor(
        () =>
          tg
            .sentTo(alice.id)
            .slice(from)
            .find((m) => !!m.reply_markup?.inline_keyboard),
        90_000,
        'approval card',
      )
      .catch(show('approval card', from));
  const button = (m: SentMessage, label: string) => m.reply_markup!.inline_keyboard![0].find((b) => b.text === label)!.callback_data;
  const events = () =>
    readFileSync(join(h.home, 'cli-hooks', 'nestclaw-gemini-1', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  /** On a failure: the chat so far and Gemini CLI's screen, which say where it stopped. */
  const show =
    (what: string, from: number) =>
    async (e: unknown): Promise<never> => {
      const screen = await tmux.capture('nestclaw-gemini-1').catch((err: Error) => err.message);
      const audit = await h.query(`SELECT action, outcome, left(detail::text, 300) AS detail FROM audit_log WHERE action LIKE 'cli.%'`);
      const inbound = await h.query(`SELECT status, left(payload->>'text', 80) AS text FROM inbound_messages`);
      console.log(
        `waiting for ${what}; the chat since the message: ${JSON.stringify(texts(from))}\nthe bridge's audit: ${JSON.stringify(audit)}\n` +
          `inbound: ${JSON.stringify(inbound)}\nthe screen:\n${screen}`,
      );
      throw e;
    };

  it('binds the chat to Gemini CLI in its tmux session', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, '/cli use gemini');
    const reply = await tg
      .waitFor(() => texts(from).find((t) => t.startsWith('Bound to gemini')), 30_000, 'bind reply')
      .catch(show('bind', from));
    expect(reply).toContain('tmux session nestclaw-gemini-1');
  });

  it('answers with the text its AfterAgent hook reports, Markdown as written', async () => {
    const from = tg.sentTo(alice.id).length;
    gemini.enqueue({ kind: 'text', text: '**你好**，我是 `Gemini`。' });
    tg.dm(alice, '你好');
    const answer = await tg
      .waitFor(
        () =>
          tg
            .sentTo(alice.id)
            .slice(from)
            .find((m) => telegramHtmlToText(m.current).includes('我是')),
        90_000,
        'the answer',
      )
      .catch(show('answer', from));
    // Rendered from the Markdown the hook carried; read from the screen it would be plain text.
    expect(answer.current).toBe('<b>你好</b>，我是 <code>Gemini</code>。');
    expect(events().some((e) => e.hook_event_name === 'AfterAgent' && e.prompt_response === '**你好**，我是 `Gemini`。')).toBe(true);
    expect(texts(from).filter((t) => t.includes('我是'))).toHaveLength(1);
  }, 120_000);

  it('turns its framed permission dialog into an approval showing the command; Approve runs it, once', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, `请创建文件 ${shell('touch made-by-gemini.txt')}`);
    const asked = await card(from);
    const question = telegramHtmlToText(asked.text);
    expect(question).toContain('touch made-by-gemini.txt');
    expect(question).toContain('cli:gemini');
    tg.press(alice, asked, button(asked, 'Approve'));
    const answer = await tg
      .waitFor(() => texts(from).find((t) => t.includes('tool said:')), 60_000, 'the answer after approval')
      .catch(show('answer', from));
    expect(answer).toContain('tool said:');
    expect(existsSync(join(workDir, 'made-by-gemini.txt'))).toBe(true);
    expect(texts(from).filter((t) => t.includes('tool said:'))).toHaveLength(1);
    // Its BeforeTool hook named the command (the chat's progress line comes from it).
    const before = events().find((e) => e.hook_event_name === 'BeforeTool');
    expect(JSON.stringify(before?.tool_input)).toContain('touch made-by-gemini.txt');
  }, 180_000);

  it('answers its dialog with the "No" option when Deny is pressed: the command never runs, and the message is still answered', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, `remove it ${shell('touch denied-by-owner.txt')}`);
    const asked = await card(from);
    expect(telegramHtmlToText(asked.text)).toContain('touch denied-by-owner.txt');
    tg.press(alice, asked, button(asked, 'Deny'));
    // Gemini CLI ends the turn without an AfterAgent event and waits: its quiet screen ends the wait (10 s).
    await eventually(
      'the message answered',
      async () => {
        const rows = await h.query<{ status: string }>(`SELECT status FROM inbound_messages WHERE payload->>'text' LIKE 'remove it%'`);
        return rows[0]?.status === 'answered';
      },
      60_000,
    ).catch(show('the answer after Deny', from));
    expect(existsSync(join(workDir, 'denied-by-owner.txt'))).toBe(false);
    expect(telegramHtmlToText(tg.sentTo(alice.id).find((m) => m.message_id === asked.message_id)!.current)).toMatch(/denied/i);
  }, 180_000);
}

describeWithHostTools(['tmux', 'gemini-cli'], 'CLI bridge: a real Gemini CLI in tmux, driven from Telegram', geminiCli);
