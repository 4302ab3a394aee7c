import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { telegramHtmlToText } from '@nestclaw/channel';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import { eventually } from '../../support/eventually';
import { describeWithHostTools, HostToolPaths } from '../../support/host-tools';
import { Harness, startHarness } from '../../support/gateway-harness';
import { FakeAnthropicServer } from '../../fixtures/fake-anthropic.server';
import { FakeTelegramServer, FakeUser, SentMessage } from '../../fixtures/fake-telegram.server';

const alice: FakeUser = { id: 4711, first_name: 'Alice', username: 'alice' };

/** A tool use the fake Anthropic server answers with (FakeAnthropicServer's `[tool:Name {input}]` rule). */
const bash = (command: string) => `[tool:Bash ${JSON.stringify({ command, description: 'Run it' })}]`;

/**
 * Issue 26's acceptance with the real thing: Claude Code from npm (its native binary), started by the
 * bridge in a real tmux, talking to the fake Anthropic server (ANTHROPIC_BASE_URL). Its first-run
 * state is seeded in a HOME of its own (onboarding done, the working directory trusted), and it runs in
 * `default` permission mode, so a command that writes asks: that menu becomes an approval card in
 * Telegram. `.ci/run` installs Claude Code for the tests; without it the suite skips and says how.
 */
function claudeCode(tools: HostToolPaths) {
  let h: Harness;
  let tg: FakeTelegramServer;
  let anthropic: FakeAnthropicServer;
  let workDir: string;
  let claudeHome: string;
  let tmux: TmuxDriver;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    anthropic = new FakeAnthropicServer();
    await anthropic.start();
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-claude-work-'));
    claudeHome = mkdtempSync(join(tmpdir(), 'nestclaw-claude-home-'));
    writeFileSync(
      join(claudeHome, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, projects: { [workDir]: { hasTrustDialogAccepted: true } } }),
    );
    h = await startHarness({
      env: { NESTCLAW_TMUX_SOCKET: `nestclaw-claude-${process.pid}` },
      config: {
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [String(alice.id)], poll_timeout: 1 },
        },
        // per_token: the API test polls GET /v1/approvals while its chat request waits.
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' }, per_token: { limit: 100_000, window: '1m' } } },
        clis: {
          claude: {
            // Its Stop hook says when it finished and what it answered (libs/cli-bridge/src/hooks).
            kind: 'claude-code',
            command: tools['claude-code']!,
            // Every permission prompt shown (its default is `auto`, which decides risky calls itself).
            args: ['--permission-mode', 'default'],
            env: {
              HOME: claudeHome,
              ANTHROPIC_BASE_URL: anthropic.url,
              // A bearer token rather than ANTHROPIC_API_KEY, which Claude Code asks about before using.
              ANTHROPIC_AUTH_TOKEN: 'sk-fake-claude',
              CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            },
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
    await anthropic?.stop();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(claudeHome, { recursive: true, force: true });
  });

  const texts = (from: number) =>
    tg
      .sentTo(alice.id)
      .slice(from)
      .map((m) => telegramHtmlToText(m.current));
  const card = (from: number) =>
    tg.waitFor(
      () =>
        tg
          .sentTo(alice.id)
          .slice(from)
          .find((m) => !!m.reply_markup?.inline_keyboard),
      // Claude Code redraws its screen on a busy 2-core CI runner slowly: 30 s was once not enough.
      90_000,
      'approval card',
    );
  const button = (m: SentMessage, label: string) => m.reply_markup!.inline_keyboard![0].find((b) => b.text === label)!.callback_data;
  /** On a failure: the chat so far and Claude Code's screen, which say where it stopped. */
  const show =
    (what: string, from: number, session = 'nestclaw-claude-1') =>
    async (e: unknown): Promise<never> => {
      const screen = await tmux.capture(session).catch((err: Error) => err.message);
      console.log(`waiting for ${what}; the chat since the message: ${JSON.stringify(texts(from))}\nthe screen:\n${screen}`);
      throw e;
    };

  it('binds the chat to Claude Code in its tmux session', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, '/cli use claude');
    const reply = await tg
      .waitFor(() => texts(from).find((t) => t.startsWith('Bound to claude')), 30_000, 'bind reply')
      .catch(show('bind', from));
    expect(reply).toContain('tmux session nestclaw-claude-1');
  });

  it('answers with the text its Stop hook reports, Markdown as written (its screen draws it rendered)', async () => {
    const from = tg.sentTo(alice.id).length;
    const message = 'show **粗体** and `code`';
    tg.dm(alice, message);
    const answer = await tg
      .waitFor(
        () =>
          tg
            .sentTo(alice.id)
            .slice(from)
            .find((m) => telegramHtmlToText(m.current).startsWith('echo:')),
        90_000,
        'the answer',
      )
      .catch(show('answer', from));
    // The Markdown reached the chat as written and was rendered for Telegram; read from the screen it would be plain text.
    expect(answer.current).toBe('echo: show <b>粗体</b> and <code>code</code>');
    const events = readFileSync(join(h.home, 'cli-hooks', 'nestclaw-claude-1', 'events.jsonl'), 'utf8');
    const stops = events.split('\n').filter((l) => l.includes('"hook_event_name":"Stop"'));
    expect(stops.some((l) => (JSON.parse(l) as { last_assistant_message?: string }).last_assistant_message === `echo: ${message}`)).toBe(
      true,
    );
  }, 120_000);

  it('turns its permission prompt into an approval; Approve lets the command run, and the answer arrives once', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, `请创建文件 ${bash('touch made-by-claude.txt')}`);
    const asked = await card(from).catch(show('approval card', from));
    const question = telegramHtmlToText(asked.text);
    // The card shows the command itself, not just "Bash".
    expect(question).toContain('touch made-by-claude.txt');
    expect(question).toContain('cli:claude');
    tg.press(alice, asked, button(asked, 'Approve'));
    const answer = await tg
      .waitFor(() => texts(from).find((t) => t.includes('tool said:')), 60_000, 'the answer after approval')
      .catch(show('answer', from));
    expect(answer).toContain('tool said:');
    expect(existsSync(join(workDir, 'made-by-claude.txt'))).toBe(true);
    // The Chinese message reached the model intact, and the answer was delivered once.
    const sent = anthropic.requests.map((r) => JSON.stringify(r.body.messages));
    expect(sent.some((m) => m.includes('请创建文件'))).toBe(true);
    expect(texts(from).filter((t) => t.includes('tool said:'))).toHaveLength(1);
  }, 180_000);

  it('answers the prompt with its "No" option when Deny is pressed: the command never runs', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, `remove it ${bash('touch denied-by-owner.txt')}`);
    const asked = await card(from).catch(show('approval card', from));
    expect(telegramHtmlToText(asked.text)).toContain('touch denied-by-owner.txt');
    tg.press(alice, asked, button(asked, 'Deny'));
    // Claude Code stops the turn and waits for what to do instead; the bridge answers with what the screen says.
    await eventually(
      'the message answered',
      async () => {
        const rows = await h.query<{ status: string }>(`SELECT status FROM inbound_messages WHERE payload->>'text' LIKE 'remove it%'`);
        return rows[0]?.status === 'answered';
      },
      60_000,
    ).catch(show('the answer after Deny', from));
    expect(existsSync(join(workDir, 'denied-by-owner.txt'))).toBe(false);
    // And the card says who decided what.
    expect(telegramHtmlToText(tg.sentTo(alice.id).find((m) => m.message_id === asked.message_id)!.current)).toMatch(/denied/i);
  }, 180_000);

  it('does the same through POST /v1/chat: its question is an approval decided through the API, its answer the reply', async () => {
    const chat = async (body: Record<string, unknown>) => {
      const res = await h.api('/v1/chat', { json: body });
      const json = (await res.json()) as { sessionId: string; reply: string };
      if (res.status !== 200) throw new Error(`POST /v1/chat answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const bound = await chat({ message: '/cli use claude' });
    expect(bound.reply).toContain('tmux session nestclaw-claude-2');
    const { sessionId } = bound;
    const answer = chat({ message: `请创建文件 ${bash('touch made-through-api.txt')}`, sessionId });
    const question = await eventually(
      'the permission question in GET /v1/approvals',
      async () => {
        const { approvals } = (await (await h.api('/v1/approvals?status=pending')).json()) as {
          approvals: { id: string; sessionId: string; input: { prompt: string[] } }[];
        };
        return approvals.find((a) => a.sessionId === sessionId);
      },
      90_000,
    ).catch(show('the approval', 0, 'nestclaw-claude-2'));
    expect(question.input.prompt.join('\n')).toContain('touch made-through-api.txt');
    expect((await h.api(`/v1/approvals/${question.id}`, { json: { decision: 'approve' } })).status).toBe(201);
    const { reply } = await answer.catch(show('the answer', 0, 'nestclaw-claude-2'));
    expect(reply).toContain('tool said:');
    expect(existsSync(join(workDir, 'made-through-api.txt'))).toBe(true);
    const turn = await h.query<{ role: string }>(`SELECT role FROM messages WHERE session_id = $1 AND content LIKE '%tool said:%'`, [
      sessionId,
    ]);
    expect(turn).toEqual([{ role: 'assistant' }]);
  }, 240_000);
}

describeWithHostTools(
  ['tmux', 'claude-code'],
  'CLI bridge: a real Claude Code in tmux, driven from Telegram and POST /v1/chat',
  claudeCode,
);
