import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import { DiscordUser, FakeDiscordServer, PostedMessage } from '../../fixtures/fake-discord.server';
import { eventually } from '../../support/eventually';
import { describeWithHostTools } from '../../support/host-tools';
import { Harness, startHarness } from '../../support/gateway-harness';

const dana: DiscordUser = { id: '700000000000004101', username: 'dana' };
const paired: DiscordUser = { id: '700000000000004202', username: 'pat' };
const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');

/**
 * Issue 26's acceptance through the fake Discord (discord.js against a fake REST API and gateway): the
 * fake coding CLI in a real tmux, its questions as Discord buttons, its failures reported in the DM.
 * cli-bridge.e2e-spec.ts covers the same through Telegram, and more of the commands.
 */
describeWithHostTools(['tmux'], 'CLI bridge: a fake coding CLI in a real tmux, driven from Discord', () => {
  let h: Harness;
  let dc: FakeDiscordServer;
  let workDir: string;
  let tmux: TmuxDriver;

  beforeAll(async () => {
    dc = new FakeDiscordServer();
    await dc.start();
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-discord-'));
    h = await startHarness({
      env: { NESTCLAW_TMUX_SOCKET: `nestclaw-discord-test-${process.pid}` },
      config: {
        channels: { discord: { enabled: true, token: dc.token, api_root: dc.url, allow_from: [dana.id], stream_edit_interval: 50 } },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' } } },
        tools: { approval: { timeout: '20s' } },
        clis: {
          fake: { command: process.execPath, args: [FAKE_CLI], allowed_dirs: [workDir], done_after: '800ms', watchdog: '4s' },
        },
      },
    });
    await dc.waitFor(() => dc.connected, 10_000, 'gateway connection');
    tmux = h.gateway.app.get(TmuxDriver);
  });
  afterAll(async () => {
    for (const s of (await tmux?.list()) ?? []) await tmux.kill(s);
    await h?.stop();
    await dc?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const chat = () => dc.dmChannelOf(dana);
  const texts = (from: number) =>
    dc
      .postedTo(chat())
      .slice(from)
      .map((m) => m.current);
  /** Sends `text` as Dana and waits for the first message since then that `match`es. */
  const ask = async (text: string, match: (t: string) => boolean, what: string, timeoutMs = 15_000) => {
    const from = dc.postedTo(chat()).length;
    dc.dm(dana, text);
    return dc
      .waitFor(() => texts(from).find(match), timeoutMs, what)
      .catch((e) => {
        console.log(`the DM since the message, waiting for ${what}:`, JSON.stringify(texts(from)));
        throw e;
      });
  };
  const cardSince = (from: number) =>
    dc.waitFor(
      () =>
        dc
          .postedTo(chat())
          .slice(from)
          .find((m) => !!m.components?.length),
      15_000,
      'approval card',
    );
  const button = (card: PostedMessage, label: string) => card.components![0].components.find((b) => b.label === label)!.custom_id;

  it('binds the DM to the CLI and passes a multi-line Chinese message through, answered once', async () => {
    expect(await ask('/cli use fake', (t) => t.startsWith('Bound to fake'), 'bind reply')).toContain('(tmux session nestclaw-fake-1)');
    const from = dc.postedTo(chat()).length;
    const reply = await ask('第一行：分析这段错误日志\n第二行 with English', (t) => t.startsWith('echo:'), 'echo');
    expect(reply).toBe('echo: 第一行：分析这段错误日志\n第二行 with English');
    await eventually('the message answered', async () => {
      const rows = await h.query<{ status: string }>(
        `SELECT status FROM inbound_messages WHERE channel = 'discord' AND payload->>'text' LIKE '第一行%'`,
      );
      return rows.length === 1 && rows[0].status === 'answered';
    });
    expect(texts(from).filter((t) => t.startsWith('echo: 第一行'))).toHaveLength(1);
  });

  it('turns an arrow-key menu into buttons: Approve picks Yes', async () => {
    const from = dc.postedTo(chat()).length;
    dc.dm(dana, 'edit it ask-menu');
    const card = await cardSince(from);
    expect(card.current).toContain('1. Yes');
    expect(card.current).toContain('cli:fake');
    dc.press(dana, card, button(card, 'Approve'));
    const reply = await dc.waitFor(() => texts(from).find((t) => t.includes('choice:')), 15_000, 'answer after approval');
    expect(reply).toContain('choice: Yes');
    const [approval] = await h.query<{ status: string; decided_by: string }>(
      `SELECT status, decided_by FROM tool_approvals WHERE tool = 'cli:fake' ORDER BY requested_at DESC LIMIT 1`,
    );
    expect(approval).toEqual({ status: 'approved', decided_by: `discord:${dana.id}` });
  });

  it('turns a [y/N] prompt into buttons: Deny sends n', async () => {
    const from = dc.postedTo(chat()).length;
    dc.dm(dana, 'clean up please ask-yn');
    const card = await cardSince(from);
    expect(card.current).toContain('Run rm -rf build? [y/N]');
    dc.press(dana, card, button(card, 'Deny'));
    const reply = await dc.waitFor(() => texts(from).find((t) => t.includes('answer:')), 15_000, 'answer after denial');
    expect(reply).toContain('answer: n');
  });

  it('answers two messages sent while the CLI is busy in order, each told it is queued', async () => {
    const from = dc.postedTo(chat()).length;
    dc.dm(dana, 'slow first');
    await eventually('the spinner', async () => (await tmux.capture('nestclaw-fake-1')).includes('Thinking'));
    dc.dm(dana, 'second');
    dc.dm(dana, 'third');
    const all = await dc.waitFor(
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
    await ask('/cli restart', (t) => t.startsWith('Restarted fake'), 'restart');
    expect(await ask('alive again', (t) => t.startsWith('echo:'), 'echo after restart')).toBe('echo: alive again');
  });

  it('refuses a paired sender who is not the owner', async () => {
    const dm = dc.dmChannelOf(paired);
    dc.dm(paired, 'hello');
    const codeMsg = await dc.waitFor(() => dc.postedTo(dm)[0], 10_000, 'pairing code');
    const code = /pairing code: ([A-Z2-9]{8})/.exec(codeMsg.current)![1];
    expect((await h.api('/v1/pairing/approve', { json: { channel: 'discord', code } })).status).toBe(200);
    const from = dc.postedTo(dm).length;
    dc.dm(paired, '/cli use fake');
    const reply = await dc.waitFor(
      () =>
        dc
          .postedTo(dm)
          .slice(from)
          .find((x) => x.current !== '…'),
      10_000,
      'refusal',
    );
    expect(reply.current).toMatch(/^Only the owner and the people listed for a CLI may drive it/);
    expect(await tmux.list()).toEqual(['nestclaw-fake-1']);
  });
});
