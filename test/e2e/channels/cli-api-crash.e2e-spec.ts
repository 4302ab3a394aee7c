import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { describeWithHostTools } from '../../support/host-tools';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');
const BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);

interface StoredMessage {
  role: string;
  content: string;
}

/**
 * `kill -9` of the gateway while a CLI bound to an API session works on a `POST /v1/chat` message: the
 * client's request dies with the gateway, the CLI keeps running in tmux, and after the restart the gateway
 * reads that message's answer (never typing it again) and stores it as the turn's answer, once, where the
 * client reads the transcript.
 */
describeWithHostTools(['tmux'], 'CLI bridge: an API message across kill -9', () => {
  let db: TestDatabase;
  let home: string;
  let workDir: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;
  let sessionId: string;
  const socket = `nestclaw-api-crash-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' }).stdout ?? '';
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'nestclaw-fake-1:0.0');
  const chat = async (body: Record<string, unknown>) => {
    const res = await running!.api('/v1/chat', { json: body });
    const json = (await res.json()) as { sessionId: string; reply: string };
    if (res.status !== 200) throw new Error(`POST /v1/chat answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const transcript = async () => {
    const res = await running!.api(`/v1/sessions/${sessionId}/messages`);
    return ((await res.json()) as { messages: StoredMessage[] }).messages;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-cli-api-crash-'));
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-api-crash-dir-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        clis: { fake: { command: process.execPath, args: [FAKE_CLI], allowed_dirs: [workDir], done_after: '800ms', watchdog: '20s' } },
      }),
    );
    env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'cli-api-crash-token-0123456789',
      NESTCLAW_TMUX_SOCKET: socket,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    running = await spawnGateway(env, BOOT_MS);
    const bound = await chat({ message: '/cli use fake' });
    expect(bound.reply).toContain('Bound to fake');
    sessionId = bound.sessionId;
  }, 150_000);

  afterAll(async () => {
    await running?.kill9();
    tmux('kill-server');
    await db?.drop();
    for (const dir of [home, workDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stores the answer of a message typed before the kill once, and never types it again', async () => {
    const text = 'slow API 任务';
    // The client's request: it dies with the gateway.
    const lost = chat({ message: text, sessionId }).then(
      () => 'answered',
      () => 'failed',
    );
    await eventually('the message typed into the CLI', async () => screen().includes(`> ${text}`), 20_000);
    await running!.kill9();
    running = undefined;
    expect(await lost).toBe('failed');
    running = await spawnGateway(env, BOOT_MS);
    const answered = await eventually(
      'the answer in the transcript after the restart',
      async () => (await transcript()).find((m) => m.role === 'assistant' && m.content === `echo: ${text}`),
      30_000,
    );
    expect(answered).toBeDefined();
    // The session goes on: the next message is answered, and the first one was stored and typed once.
    const next = await chat({ message: 'after the restart', sessionId });
    expect(next.reply).toBe('echo: after the restart');
    const messages = await transcript();
    expect(messages.filter((m) => m.role === 'assistant' && m.content === `echo: ${text}`)).toHaveLength(1);
    expect(messages.filter((m) => m.role === 'user' && m.content === text)).toHaveLength(1);
    expect(
      screen()
        .split('\n')
        .filter((l) => l.trimEnd() === `> ${text}`),
    ).toHaveLength(1);
  }, 200_000);
});
