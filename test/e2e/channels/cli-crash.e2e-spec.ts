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

const owner: FakeUser = { id: 4801, first_name: 'Olga' };
const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');
const BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);

/**
 * `kill -9` of the gateway while a bound CLI works on a message (issue 26): the CLI keeps running in
 * tmux, and after the restart the gateway re-attaches, reads the answer of the message it had already
 * typed (never typing it again) and delivers it to the chat once.
 */
describeWithHostTools(['tmux'], 'CLI bridge across kill -9', () => {
  let tg: FakeTelegramServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let workDir: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;
  const socket = `nestclaw-crash-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' }).stdout ?? '';
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'nestclaw-fake-1:0.0');
  const texts = () => tg.sentTo(owner.id).map((m) => telegramHtmlToText(m.current));

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-cli-crash-'));
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-crash-dir-'));
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
      NESTCLAW_TOKEN: 'cli-crash-token-0123456789',
      NESTCLAW_TMUX_SOCKET: socket,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    running = await spawnGateway(env, BOOT_MS);
    const from = texts().length;
    tg.dm(owner, '/cli use fake');
    await tg.waitFor(
      () =>
        texts()
          .slice(from)
          .find((t) => t.startsWith('Bound to fake')),
      20_000,
      'bound',
    );
  }, 150_000);

  afterAll(async () => {
    await running?.kill9();
    tmux('kill-server');
    await tg?.stop();
    await llm?.stop();
    await db?.drop();
    for (const dir of [home, workDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Sends `text`, waits until the CLI shows it typed, kills the gateway, optionally waits, restarts. */
  const crashWhileWorking = async (text: string, beforeRestart: () => Promise<unknown>) => {
    tg.dm(owner, text);
    await tg.waitFor(() => screen().includes(`> ${text}`) || undefined, 20_000, 'the message typed into the CLI');
    await running!.kill9();
    running = undefined;
    await beforeRestart();
    running = await spawnGateway(env, BOOT_MS);
    await tg.waitFor(() => texts().find((t) => t === `echo: ${text}`), 30_000, `the answer to "${text}" after the restart`);
    // Settle: a second delivery or a second typing would show within the CLI's answer time.
    tg.dm(owner, `after ${text}`);
    await tg.waitFor(() => texts().find((t) => t === `echo: after ${text}`), 20_000, 'the next message answered');
    expect(texts().filter((t) => t === `echo: ${text}`)).toHaveLength(1);
    expect(
      screen()
        .split('\n')
        .filter((l) => l.trimEnd() === `> ${text}`),
    ).toHaveLength(1);
  };

  it('reads the answer of a message typed before the kill while the CLI still works on it: delivered once, typed once', async () => {
    await crashWhileWorking('slow 第一个 task', async () => undefined);
  }, 200_000);

  it('delivers an answer the CLI finished while the gateway was down, once, without typing the message again', async () => {
    await crashWhileWorking('slow 第二个 task', () =>
      tg.waitFor(() => screen().includes('echo: slow 第二个 task') || undefined, 20_000, 'the CLI answering while the gateway is down'),
    );
  }, 200_000);
});
