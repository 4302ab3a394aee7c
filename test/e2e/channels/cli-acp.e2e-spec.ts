import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { telegramHtmlToText } from '@nestclaw/channel';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { FakeTelegramServer, FakeUser, SentMessage } from '../../fixtures/fake-telegram.server';

const owner: FakeUser = { id: 5101, first_name: 'Olga' };
const paired: FakeUser = { id: 5202, first_name: 'Pat' };
const FAKE_AGENT = join(__dirname, '../../fixtures/fake-acp-agent.mjs');
const BOOT_MS = 90_000;

interface PendingApproval {
  id: string;
  tool: string;
  sessionId: string;
  input: { cli: string; tool: string; kind: string; command?: string; diffs?: { path: string; oldText: string | null; newText: string }[] };
}
interface Listed {
  clis: { name: string; sessions: { name: string; state: string; inFlight: number; workDir: string }[] }[];
}

/** Whether a process with this pid exists (signal 0 only checks). */
const exists = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Issue 26's structured mode: the built gateway drives a CLI speaking the Agent Client Protocol (the
 * fake agent fixture on the SDK's agent side, a real child process over stdio) from Telegram and
 * through POST /v1/chat. Its permission requests are approvals; the fixture reports which option it got.
 */
describe('CLI bridge in ACP mode: a fake ACP agent driven by the built gateway', () => {
  let tg: FakeTelegramServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let workDir: string;
  let gateway: GatewayProcess | undefined;
  const texts = (user: FakeUser, from = 0) =>
    tg
      .sentTo(user.id)
      .slice(from)
      .map((m) => telegramHtmlToText(m.current));
  /** Sends `text` as `user` and waits for the first reply since then that `match`es. */
  const ask = async (text: string, match: (t: string) => boolean, what: string, user = owner, timeoutMs = 20_000) => {
    const from = tg.sentTo(user.id).length;
    tg.dm(user, text);
    return tg
      .waitFor(() => texts(user, from).find(match), timeoutMs, what)
      .catch((e) => {
        console.log(`the chat since "${text}", waiting for ${what}:`, JSON.stringify(texts(user, from)), gateway?.output());
        throw e;
      });
  };
  const cardSince = (from: number) =>
    tg.waitFor(
      () =>
        tg
          .sentTo(owner.id)
          .slice(from)
          .find((m) => !!m.reply_markup?.inline_keyboard),
      20_000,
      'approval card',
    );
  const button = (card: SentMessage, label: string) => card.reply_markup!.inline_keyboard![0].find((b) => b.text === label)!.callback_data;
  const clis = async () => ((await (await gateway!.api('/v1/clis')).json()) as Listed).clis.find((c) => c.name === 'acp')!;
  const whoami = async () => {
    const reply = await ask('whoami', (t) => t.startsWith('pid='), 'whoami');
    return { reply, pid: Number(/^pid=(\d+)/.exec(reply)![1]) };
  };

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-cli-acp-'));
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-acp-dir-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        channels: { telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [owner.id], poll_timeout: 1 } },
        session: { identity_links: { owner: [`telegram:${owner.id}`] } },
        security: { rate_limit: { per_sender: { limit: 100, window: '1m' }, per_token: { limit: 100_000, window: '1m' } } },
        tools: { approval: { timeout: '30s' } },
        clis: {
          acp: {
            mode: 'acp',
            command: process.execPath,
            args: [FAKE_AGENT],
            env: { FAKE_ACP_SECRET: 'only-for-the-agent' },
            allowed_dirs: [workDir],
            watchdog: '3s',
          },
        },
      }),
    );
    gateway = await spawnGateway(
      {
        PATH: process.env.PATH,
        NESTCLAW_HOME: home,
        NESTCLAW_TOKEN: 'cli-acp-token-0123456789',
        ...(db.url ? { DATABASE_URL: db.url } : {}),
      },
      BOOT_MS,
    );
  }, 150_000);

  afterAll(async () => {
    await gateway?.stop();
    await tg?.stop();
    await llm?.stop();
    await db?.drop();
    for (const dir of [home, workDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('binds the chat to the ACP agent in an allowed directory, and refuses another directory', async () => {
    const bound = await ask('/cli use acp', (t) => t.startsWith('Bound to'), 'bind reply');
    expect(bound).toBe(
      `Bound to acp in ${workDir} (ACP session nestclaw-acp-1). Your messages now go to it as typed; /cli exit returns to the assistant.`,
    );
    expect(await ask('/cli use acp /etc', (t) => t.includes('may only run in'), 'refusal')).toBe(`acp may only run in: ${workDir}.`);
    expect(await ask('/cli status', (t) => t.startsWith('Bound to'), 'status')).toBe(
      `Bound to acp in ${workDir}: ACP session nestclaw-acp-1 (running).`,
    );
  });

  it('runs the agent without a shell in the chosen directory with only the minimal environment and its own', async () => {
    const { reply } = await whoami();
    expect(reply).toContain(`cwd=${workDir} `);
    const names = /env=(\S*)/.exec(reply)![1].split(',');
    expect(names).toEqual(['FAKE_ACP_SECRET', 'HOME', 'LANG', 'LC_ALL', 'NESTCLAW_CLI', 'PATH', 'TERM']);
    expect(reply).toContain('FAKE_ACP_SECRET=only-for-the-agent');
  });

  it('answers a Chinese message once with the streamed chunks joined, and audits input and output', async () => {
    const from = tg.sentTo(owner.id).length;
    expect(await ask('你好，请分析这个项目', (t) => t.startsWith('收到'), 'answer')).toBe('收到：你好，请分析这个项目');
    // The next answer arrives after any second delivery of this one would have.
    await ask('第二条', (t) => t.startsWith('收到：第二条'), 'second answer');
    expect(texts(owner, from).filter((t) => t === '收到：你好，请分析这个项目')).toHaveLength(1);
    const entries = async (action: string) => {
      const { entries } = (await (await gateway!.api(`/v1/audit?action=${action}&limit=100`)).json()) as {
        entries: { actor: string; detail?: { text?: string } }[];
      };
      return entries.filter((e) => e.detail?.text?.includes('你好')).map((e) => [e.actor, e.detail!.text]);
    };
    expect(await entries('cli.input')).toEqual([[`telegram:${owner.id}`, '你好，请分析这个项目']]);
    expect(await entries('cli.output')).toEqual([['cli:acp', '收到：你好，请分析这个项目']]);
  });

  it('turns a permission request into an approval card showing the command; Approve gives the agent allow_once', async () => {
    const from = tg.sentTo(owner.id).length;
    tg.dm(owner, 'please delete the build');
    const card = await cardSince(from);
    const shown = telegramHtmlToText(card.text);
    expect(shown).toContain('cli:acp');
    expect(shown).toContain('"command": "rm -rf build"');
    expect(shown).toContain('"kind": "execute"');
    // Busy while it waits for the decision: GET /v1/clis shows the message in flight.
    expect((await clis()).sessions).toEqual([expect.objectContaining({ name: 'nestclaw-acp-1', state: 'running', inFlight: 1, workDir })]);
    tg.press(owner, card, button(card, 'Approve'));
    const reply = await tg.waitFor(() => texts(owner, from).find((t) => t.includes('permission:')), 20_000, 'answer after approval');
    expect(reply).toBe('收到：please delete the build\npermission: allowed (allow_once)');
    const { approvals } = (await (await gateway!.api('/v1/approvals?status=approved')).json()) as {
      approvals: PendingApproval[];
    };
    expect(approvals.find((a) => a.tool === 'cli:acp')?.input).toMatchObject({
      tool: 'rm -rf build',
      kind: 'execute',
      command: 'rm -rf build',
    });
  });

  it('shows an edit with its diff on the card; Deny gives the agent reject_once', async () => {
    const from = tg.sentTo(owner.id).length;
    tg.dm(owner, 'edit the greeting');
    const card = await cardSince(from);
    const shown = telegramHtmlToText(card.text);
    expect(shown).toContain('Edit src/app.ts');
    expect(shown).toContain(`${join(workDir, 'src', 'app.ts')}:1`);
    expect(shown).toContain('"oldText": "const greeting = \\"hello\\";\\n"');
    expect(shown).toContain('"newText": "const greeting = \\"你好\\";\\n"');
    tg.press(owner, card, button(card, 'Deny'));
    const reply = await tg.waitFor(() => texts(owner, from).find((t) => t.includes('permission:')), 20_000, 'answer after denial');
    expect(reply).toBe('收到：edit the greeting\npermission: rejected (reject_once)');
  });

  it('answers cancelled when the agent offers no one-time option, approved or not', async () => {
    const from = tg.sentTo(owner.id).length;
    tg.dm(owner, 'fetch it always-only');
    const card = await cardSince(from);
    tg.press(owner, card, button(card, 'Approve'));
    const reply = await tg.waitFor(() => texts(owner, from).find((t) => t.includes('permission:')), 20_000, 'answer');
    expect(reply).toBe('收到：fetch it always-only\npermission: cancelled');
  });

  it('drives the agent through POST /v1/chat, the approval decided through the approvals API', async () => {
    const chat = async (body: Record<string, unknown>) => {
      const res = await gateway!.api('/v1/chat', { json: body });
      const json = (await res.json()) as { sessionId: string; reply: string };
      if (res.status !== 200) throw new Error(`POST /v1/chat answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const bound = await chat({ message: '/cli use acp' });
    expect(bound.reply).toContain('(ACP session nestclaw-acp-2)');
    const { sessionId } = bound;
    expect((await chat({ message: '中文 over HTTP', sessionId })).reply).toBe('收到：中文 over HTTP');
    for (const [decision, outcome] of [
      ['approve', 'allowed (allow_once)'],
      ['deny', 'rejected (reject_once)'],
    ] as const) {
      const answer = chat({ message: `api delete ${decision}`, sessionId });
      const pending = await eventually('the permission in GET /v1/approvals', async () => {
        const { approvals } = (await (await gateway!.api('/v1/approvals?status=pending')).json()) as { approvals: PendingApproval[] };
        return approvals.find((a) => a.sessionId === sessionId && a.tool === 'cli:acp');
      });
      expect(pending.input).toMatchObject({ cli: 'acp', tool: 'rm -rf build', kind: 'execute', command: 'rm -rf build' });
      expect((await gateway!.api(`/v1/approvals/${pending.id}`, { json: { decision } })).status).toBe(201);
      expect((await answer).reply).toBe(`收到：api delete ${decision}\npermission: ${outcome}`);
    }
    expect((await chat({ message: '/cli exit', sessionId })).reply).toContain('Unbound from acp');
  });

  it('reports an agent that went silent (the watchdog); /keys ctrl-c cancels its turn and the next message is answered', async () => {
    const report = await ask('hang', (t) => t.includes('nothing new'), 'watchdog report');
    expect(report).toMatch(/^⚠ acp has shown nothing new for \d+ s/);
    expect(await ask('/keys ctrl-c', (t) => t.startsWith('Sent'), 'keys reply')).toBe(
      'Sent ctrl-c to acp (its current turn is cancelled).',
    );
    expect(await ask('/keys up', (t) => t.includes('speaks ACP'), 'keys refusal')).toContain('only /keys ctrl-c (or esc) applies');
    expect(await ask('still there?', (t) => t.startsWith('收到'), 'answer after cancel')).toBe('收到：still there?');
  });

  it('reports a crashed agent with what to send; /cli restart starts a new process that answers', async () => {
    const before = (await whoami()).pid;
    const report = await ask('crash', (t) => t.includes('not running'), 'crash report');
    expect(report).toBe('✖ acp is not running any more (it exited or crashed). Send /cli restart to start it again.');
    expect(await ask('/cli status', (t) => t.startsWith('Bound to'), 'status')).toContain('not running, send /cli restart');
    expect((await clis()).sessions).toEqual([expect.objectContaining({ name: 'nestclaw-acp-1', state: 'exited', inFlight: 0 })]);
    expect(await ask('/cli restart', (t) => t.startsWith('Restarted'), 'restart')).toBe(
      `Restarted acp in ${workDir} (ACP session nestclaw-acp-1).`,
    );
    const after = (await whoami()).pid;
    expect(after).not.toBe(before);
    expect(await ask('回来了吗', (t) => t.startsWith('收到'), 'answer after restart')).toBe('收到：回来了吗');
  });

  it('refuses a paired user who is not the owner, and starts nothing for them', async () => {
    tg.dm(paired, 'hello');
    const codeMsg = await tg.waitFor(() => tg.sentTo(paired.id)[0], 10_000, 'pairing code');
    const code = /pairing code: ([A-Z2-9]{8})/.exec(telegramHtmlToText(codeMsg.current))![1];
    expect((await gateway!.api('/v1/pairing/approve', { json: { channel: 'telegram', code } })).status).toBe(200);
    const reply = await ask('/cli use acp', (t) => t !== '…', 'refusal', paired);
    expect(reply).toMatch(/^Only the owner and the people listed for a CLI may drive it/);
    expect((await clis()).sessions.map((s) => s.name)).toEqual(['nestclaw-acp-1']);
  });

  it('ends the agent process on /cli stop, and on gateway shutdown', async () => {
    const first = (await whoami()).pid;
    expect(await ask('/cli stop', (t) => t.startsWith('Stopped'), 'stop')).toContain('Stopped acp (nestclaw-acp-1)');
    await eventually('the stopped agent gone', async () => !exists(first));
    await ask('/cli restart', (t) => t.startsWith('Restarted'), 'restart');
    const second = (await whoami()).pid;
    expect(exists(second)).toBe(true);
    expect(await gateway!.interrupt()).toBe(0);
    gateway = undefined;
    await eventually('the agent gone with the gateway', async () => !exists(second));
  });
});
