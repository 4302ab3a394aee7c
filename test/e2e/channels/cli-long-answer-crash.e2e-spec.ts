import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { telegramHtmlToText } from '@nestclaw/channel';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { describeWithHostTools } from '../../support/host-tools';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const owner: FakeUser = { id: 4811, first_name: 'Olga' };
const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');
const BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);
/** The answer the fake CLI prints for a message with `long` in it (fake-cli.js's longLine, 400 times, then END). */
const LONG_ANSWER = [
  ...Array.from({ length: 400 }, (_, i) => `第${i}行：分析结果 line ${i} of the long answer, 中文保持完整 ✓`),
  'END',
].join('\n');

/**
 * `kill -9` of the gateway while it sends a long CLI answer's document to Telegram (no idempotency key):
 * after the restart the answer arrives as one whole document, never two (a placeholder file may stay).
 */
describeWithHostTools(['tmux'], 'CLI bridge: a long answer as a file across kill -9', () => {
  let tg: FakeTelegramServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let workDir: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;
  const socket = `nestclaw-long-crash-${process.pid}`;
  const texts = () => tg.sentTo(owner.id).map((m) => telegramHtmlToText(m.current));
  const whole = () => tg.sentTo(owner.id).filter((m) => m.document?.content === LONG_ANSWER);

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-long-crash-'));
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-long-crash-dir-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        channels: { telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [owner.id], poll_timeout: 1 } },
        session: { identity_links: { owner: [`telegram:${owner.id}`] } },
        clis: { fake: { command: process.execPath, args: [FAKE_CLI], allowed_dirs: [workDir], done_after: '800ms', watchdog: '20s' } },
      }),
    );
    env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'long-crash-token-0123456789',
      NESTCLAW_TMUX_SOCKET: socket,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    running = await spawnGateway(env, BOOT_MS);
    tg.dm(owner, '/cli use fake');
    await tg.waitFor(() => texts().find((t) => t.startsWith('Bound to fake')), 20_000, 'bound');
  }, 150_000);

  afterAll(async () => {
    await running?.kill9();
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    await tg?.stop();
    await llm?.stop();
    await db?.drop();
    for (const dir of [home, workDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Sends `text`, lets the next `method` call take effect unanswered, kills the gateway there and restarts it. */
  const crashAt = async (method: 'sendDocument' | 'editMessageMedia', text: string) => {
    const calls = tg.callsOf(method).length;
    tg.stallNext(method);
    tg.dm(owner, text);
    await tg.waitFor(() => tg.callsOf(method).length > calls, 30_000, `the ${method} call`);
    await running!.kill9();
    running = await spawnGateway(env, BOOT_MS);
    await tg.waitFor(() => whole().length > 0 || undefined, 30_000, 'the whole answer as a document after the restart');
    // Settle: a second copy would be sent before the next message's answer.
    tg.dm(owner, `after ${method}`);
    await tg.waitFor(() => texts().find((t) => t === `echo: after ${method}`), 20_000, 'the next message answered');
  };

  it('a document send cut short (Telegram created it, the gateway never learnt its id): the answer once, the first left a placeholder', async () => {
    await crashAt('sendDocument', 'long 第一次');
    expect(whole()).toHaveLength(1);
    const docs = tg.sentTo(owner.id).filter((m) => m.document);
    expect(docs.filter((d) => d !== whole()[0]).every((d) => d.document!.content === '…')).toBe(true);
  }, 200_000);

  it('the edit of the placeholder into the answer cut short: edited again, still one document', async () => {
    const before = tg.sentTo(owner.id).filter((m) => m.document).length;
    await crashAt('editMessageMedia', 'long 第二次');
    expect(whole()).toHaveLength(2);
    expect(tg.sentTo(owner.id).filter((m) => m.document).length - before).toBe(1);
  }, 200_000);
});
