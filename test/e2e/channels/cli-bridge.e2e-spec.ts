import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { telegramHtmlToText } from '@nestclaw/channel';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import { eventually } from '../../support/eventually';
import { describeWithHostTools } from '../../support/host-tools';
import { runCli } from '../../support/cli-process';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { FakeTelegramServer, FakeUser, SentMessage } from '../../fixtures/fake-telegram.server';

const alice: FakeUser = { id: 4101, first_name: 'Alice', username: 'alice' };
const paired: FakeUser = { id: 4202, first_name: 'Pat', username: 'pat' };
/** Paired like Pat, and listed in the CLI's own allow_from. */
const listed: FakeUser = { id: 4303, first_name: 'Quinn', username: 'quinn' };
const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');

describeWithHostTools(['tmux'], 'CLI bridge: a fake coding CLI in a real tmux, driven from Telegram', () => {
  let h: Harness;
  let tg: FakeTelegramServer;
  let workDir: string;
  const socket = `nestclaw-test-${process.pid}`;
  let tmux: TmuxDriver;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-'));
    h = await startHarness({
      env: { NESTCLAW_TMUX_SOCKET: socket },
      config: {
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [String(alice.id)], poll_timeout: 1 },
        },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' } } },
        // Approvals nobody decides expire in 5 s (the approve/deny tests press within a second).
        tools: { approval: { timeout: '5s' } },
        clis: {
          fake: {
            command: process.execPath,
            args: [FAKE_CLI],
            allowed_dirs: [workDir],
            allow_from: [`telegram:${listed.id}`],
            done_after: '800ms',
            watchdog: '4s',
          },
        },
      },
    });
    tmux = h.gateway.app.get(TmuxDriver);
  });
  afterAll(async () => {
    for (const s of (await tmux?.list()) ?? []) await tmux.kill(s);
    await h?.stop();
    await tg?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const texts = (from: number) =>
    tg
      .sentTo(alice.id)
      .slice(from)
      .map((m) => telegramHtmlToText(m.current));
  /** Sends `text` as Alice and waits for the first message since then that `match`es. */
  const ask = async (text: string, match: (t: string) => boolean, what: string, timeoutMs = 15_000) => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, text);
    return tg
      .waitFor(() => texts(from).find(match), timeoutMs, what)
      .catch((e) => {
        console.log(`the chat since the message, waiting for ${what}:`, JSON.stringify(texts(from)));
        throw e;
      });
  };
  const cardSince = (from: number) =>
    tg.waitFor(
      () =>
        tg
          .sentTo(alice.id)
          .slice(from)
          .find((m) => !!m.reply_markup?.inline_keyboard),
      15_000,
      'approval card',
    );
  const button = (card: SentMessage, label: string) => card.reply_markup!.inline_keyboard![0].find((b) => b.text === label)!.callback_data;

  it('binds the chat to the CLI in an allowed directory, in a tmux session named for it', async () => {
    const reply = await ask('/cli use fake', (t) => t.startsWith('Bound to fake'), 'bind reply');
    expect(reply).toContain(`in ${workDir} (tmux session nestclaw-fake-1)`);
    expect(await tmux.list()).toEqual(['nestclaw-fake-1']);
    const rows = await h.query<{ cli: string; tmux_session: string }>(`SELECT cli, tmux_session FROM cli_bindings`);
    expect(rows).toEqual([{ cli: 'fake', tmux_session: 'nestclaw-fake-1' }]);
  });

  it('refuses a directory that is not on the allowed list', async () => {
    const reply = await ask('/cli use fake /etc', (t) => t.includes('may only run in'), 'refusal');
    expect(reply).toBe(`fake may only run in: ${workDir}.`);
  });

  it('passes a multi-line Chinese message through intact, answers it once, and keeps it as a turn the API reads', async () => {
    const from = tg.sentTo(alice.id).length;
    const reply = await ask('第一行：分析这段错误日志\n第二行 with English', (t) => t.startsWith('echo:'), 'echo');
    expect(reply).toBe('echo: 第一行：分析这段错误日志\n第二行 with English');
    await eventually('the message answered', async () => {
      const rows = await h.query<{ status: string }>(`SELECT status FROM inbound_messages WHERE payload->>'text' LIKE '第一行%'`);
      return rows.length === 1 && rows[0].status === 'answered';
    });
    expect(texts(from).filter((t) => t.startsWith('echo: 第一行'))).toHaveLength(1);
    const log = await h.query<{ direction: string; content: string }>(
      `SELECT direction, content FROM conversation_log WHERE content LIKE '%第一行%' ORDER BY id`,
    );
    expect(log.map((l) => l.direction)).toEqual(['in', 'out']);
    const [session] = await h.query<{ session_id: string }>(
      `SELECT session_id FROM conversation_log WHERE content LIKE '第一行%' AND direction = 'in'`,
    );
    const transcript = (await (await h.api(`/v1/sessions/${encodeURIComponent(session.session_id)}/messages`)).json()) as {
      messages: { role: string; content: string; status: string; turnId: string }[];
    };
    const turn = transcript.messages.filter((x) => x.content.includes('第一行'));
    expect(turn.map((x) => [x.role, x.content, x.status])).toEqual([
      ['user', '第一行：分析这段错误日志\n第二行 with English', 'ok'],
      ['assistant', 'echo: 第一行：分析这段错误日志\n第二行 with English', 'ok'],
    ]);
    expect(turn[0].turnId).toBe(turn[1].turnId);
    const audit = await h.query<{ action: string }>(`SELECT action FROM audit_log WHERE action LIKE 'cli.%' ORDER BY id`);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['cli.input', 'cli.output']));
  });

  it('turns a [y/N] prompt into approval buttons and sends y when Approve is pressed', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, 'clean up please ask-yn');
    const card = await cardSince(from);
    expect(telegramHtmlToText(card.text)).toContain('Run rm -rf build? [y/N]');
    expect(telegramHtmlToText(card.text)).toContain('cli:fake');
    tg.press(alice, card, button(card, 'Approve'));
    const reply = await tg.waitFor(() => texts(from).find((t) => t.includes('answer:')), 15_000, 'answer after approval');
    expect(reply).toContain('answer: y');
  });

  it('turns an arrow-key menu into buttons and picks the No option when Deny is pressed', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, 'edit it ask-menu');
    const card = await cardSince(from);
    expect(telegramHtmlToText(card.text)).toContain('1. Yes');
    expect(telegramHtmlToText(card.text)).toContain('Esc to cancel');
    tg.press(alice, card, button(card, 'Deny'));
    const reply = await tg.waitFor(() => texts(from).find((t) => t.includes('choice:')), 15_000, 'answer after denial');
    expect(reply).toContain('choice: No');
  });

  it('answers a [y/N] prompt nobody decided with n once its approval expires', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, 'again ask-yn');
    await cardSince(from);
    const reply = await tg.waitFor(() => texts(from).find((t) => t.includes('answer:')), 20_000, 'answer after expiry');
    expect(reply).toContain('answer: n');
    const [approval] = await h.query<{ status: string; turn_id: string }>(
      `SELECT status, turn_id FROM tool_approvals WHERE tool = 'cli:fake' ORDER BY requested_at DESC LIMIT 1`,
    );
    expect(approval.status).toBe('expired');
    // The approval names the transcript turn the prompt came up in.
    expect(await h.query(`SELECT role FROM messages WHERE turn_id = $1 ORDER BY seq`, [approval.turn_id])).toEqual([
      { role: 'user' },
      { role: 'assistant' },
    ]);
  });

  it('answers two messages sent while the CLI is busy in order, each told it is queued', async () => {
    const from = tg.sentTo(alice.id).length;
    tg.dm(alice, 'slow first');
    await eventually('the spinner', async () => (await tmux.capture('nestclaw-fake-1')).includes('Thinking'));
    tg.dm(alice, 'second');
    tg.dm(alice, 'third');
    const all = await tg.waitFor(
      () => {
        const t = texts(from).filter((x) => x.startsWith('echo:'));
        return t.length === 3 ? t : undefined;
      },
      30_000,
      'three answers',
    );
    expect(all).toEqual(['echo: slow first', 'echo: second', 'echo: third']);
    expect(texts(from).filter((t) => t === 'fake is busy; your message is queued.')).toHaveLength(2);
  });

  it('reports a CLI that went silent (the watchdog), and /cli restart recovers it', async () => {
    const report = await ask('hang', (t) => t.includes('nothing new'), 'watchdog report');
    expect(report).toMatch(/^⚠ fake has shown nothing new for \d+ s/);
    await ask('/cli restart', (t) => t.startsWith('Restarted fake'), 'restart');
    expect(await ask('back?', (t) => t.startsWith('echo:'), 'echo after restart')).toBe('echo: back?');
  });

  it('reports a crashed CLI with what to send, and /cli restart recovers it', async () => {
    const report = await ask('crash', (t) => t.includes('not running'), 'crash report');
    expect(report).toContain('Send /cli restart');
    expect(await ask('/cli status', (t) => t.startsWith('Bound to'), 'status')).toContain('not running');
    await ask('/cli restart', (t) => t.startsWith('Restarted fake'), 'restart');
    expect(await ask('alive again', (t) => t.startsWith('echo:'), 'echo after restart')).toBe('echo: alive again');
  });

  it('sends named keys with /keys', async () => {
    expect(await ask('/keys ctrl-c', (t) => t.startsWith('Sent'), 'keys reply')).toBe('Sent ctrl-c to fake.');
    expect(await ask('/keys warp', (t) => t.startsWith('Usage'), 'keys usage')).toContain('esc|tab');
  });

  it('refuses a paired user who is not the owner, however they ask', async () => {
    tg.dm(paired, 'hello');
    const codeMsg = await tg.waitFor(() => tg.sentTo(paired.id)[0], 10_000, 'pairing code');
    const code = /pairing code: ([A-Z2-9]{8})/.exec(telegramHtmlToText(codeMsg.current))![1];
    expect((await h.api('/v1/pairing/approve', { json: { channel: 'telegram', code } })).status).toBe(200);
    const from = tg.sentTo(paired.id).length;
    tg.dm(paired, '/cli use fake');
    const reply = await tg.waitFor(
      () =>
        tg
          .sentTo(paired.id)
          .slice(from)
          .find((x) => x.current !== '…'),
      10_000,
      'refusal',
    );
    expect(telegramHtmlToText(reply.current)).toMatch(/^Only the owner and the people listed for a CLI may drive it/);
    expect(await tmux.list()).toEqual(['nestclaw-fake-1']);
  });

  it("lets a paired user listed in the CLI's allow_from drive it, in a session of their own", async () => {
    tg.dm(listed, 'hello');
    const codeMsg = await tg.waitFor(() => tg.sentTo(listed.id)[0], 10_000, 'pairing code');
    const code = /pairing code: ([A-Z2-9]{8})/.exec(telegramHtmlToText(codeMsg.current))![1];
    expect((await h.api('/v1/pairing/approve', { json: { channel: 'telegram', code } })).status).toBe(200);
    const from = tg.sentTo(listed.id).length;
    tg.dm(listed, '/cli use fake');
    const reply = await tg.waitFor(
      () =>
        tg
          .sentTo(listed.id)
          .slice(from)
          .find((x) => x.current !== '…'),
      10_000,
      'bind reply',
    );
    expect(telegramHtmlToText(reply.current)).toContain('(tmux session nestclaw-fake-2)');
    tg.dm(listed, '/cli exit');
    await eventually('the second session ended', async () => (await tmux.list()).length === 1);
  });

  it('re-attaches the bound session by name after a gateway restart: the CLI kept running and answers', async () => {
    const pid = async () => (await h.query<{ tmux_session: string }>(`SELECT tmux_session FROM cli_bindings`))[0].tmux_session;
    expect(await pid()).toBe('nestclaw-fake-1');
    await h.restart();
    tmux = h.gateway.app.get(TmuxDriver);
    expect(await ask('/cli status', (t) => t.startsWith('Bound to'), 'status after restart')).toContain('nestclaw-fake-1 (running)');
    expect(await ask('still there?', (t) => t.startsWith('echo:'), 'echo after restart')).toBe('echo: still there?');
    expect(await tmux.list()).toEqual(['nestclaw-fake-1']);
  });

  it('lists the CLI and its sessions through GET /v1/clis and `nestclaw cli list`, exited ones too', async () => {
    type Listed = {
      clis: {
        name: string;
        sessions: { name: string; state: string; inFlight: number; workDir: string; boundChats: { boundBy: string }[] }[];
      }[];
    };
    const clisNow = async () => ((await (await h.api('/v1/clis')).json()) as Listed).clis;
    const [fake] = await clisNow();
    expect(fake).toMatchObject({
      name: 'fake',
      kind: 'generic',
      command: process.execPath,
      allowedDirs: [workDir],
      allowFrom: [`telegram:${listed.id}`],
    });
    expect(fake.sessions).toEqual([
      {
        name: 'nestclaw-fake-1',
        state: 'running',
        inFlight: 0,
        workDir,
        boundChats: [expect.objectContaining({ boundBy: `telegram:${alice.id}` })],
      },
    ]);
    const cliEnv = { PATH: process.env.PATH, HOME: h.home, NESTCLAW_HOME: h.home, NESTCLAW_TOKEN: TEST_TOKEN };
    const printed = await runCli(['cli', 'list', '--url', h.gateway.url], cliEnv);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('fake (generic:');
    expect(printed.stdout).toMatch(/nestclaw-fake-1: .*running.* in .*; agent:default:telegram:dm:4101 \(bound by telegram:4101\)/);

    await tmux.kill('nestclaw-fake-1');
    expect((await clisNow())[0].sessions[0]).toMatchObject({ name: 'nestclaw-fake-1', state: 'exited' });
    expect((await runCli(['cli', 'list', '--url', h.gateway.url], cliEnv)).stdout).toContain('exited (/cli restart starts it again)');
    expect((await fetch(`${h.gateway.url}/v1/clis`)).status).toBe(401);
    await ask('/cli restart', (t) => t.startsWith('Restarted fake'), 'restart');
  });

  it('unbinds with /cli exit: the session ends and messages go to the assistant again', async () => {
    expect(await ask('/cli exit', (t) => t.startsWith('Unbound'), 'exit')).toContain('Unbound from fake');
    expect(await tmux.list()).toEqual([]);
    expect(await h.query(`SELECT 1 FROM cli_bindings`)).toEqual([]);
  });
});
