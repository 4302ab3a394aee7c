import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeFeishuServer, FeishuUser } from '../../fixtures/fake-feishu.server';
import { FakeOpenAiServer, RecordedRequest } from '../../fixtures/fake-openai.server';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const users: FeishuUser[] = [
  { openId: 'ou_ann00000000000000000000000000001', name: '安' },
  { openId: 'ou_ben00000000000000000000000000002', name: 'Ben' },
];
/** A boot may take long on a loaded machine (2 cores shared with builds); test timeouts allow for it. */
const BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);
const lastUser = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

describe('Feishu channel across a crash', () => {
  let fs: FakeFeishuServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;

  beforeAll(async () => {
    fs = new FakeFeishuServer();
    await fs.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-feishu-crash-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        channels: {
          feishu: {
            enabled: true,
            app_id: fs.appId,
            app_secret: fs.appSecret,
            domain: fs.url,
            allow_from: users.map((u) => u.openId),
            stream_edit_interval: 50,
          },
        },
      }),
    );
    env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'crash-test-token-0123456789',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
  }, 150_000);

  afterAll(async () => {
    await running?.kill9();
    await fs?.stop();
    await llm?.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('kill -9 during two turns whose events were stored but never acknowledged, and a message sent while down: each answered once', async () => {
    running = await spawnGateway(env, BOOT_MS);
    await eventually('the long connection', () => fs.connected, 15_000);
    // The model never answers in the first life, and the acknowledgements are lost with it.
    fs.dropAcks = true;
    llm.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const chats = users.map((u, i) => fs.dm(u, `问题 ${i + 1}`).chatId);
    // A turn runs only once its message is stored: both are durable, neither acknowledged.
    await eventually('two turns in flight', () => llm.requests.length >= 2, 15_000);
    expect(fs.unacked).toHaveLength(2);
    await running.kill9();
    running = undefined;
    await eventually('the connection gone', () => !fs.connected, 10_000);
    fs.dropAcks = false;
    // Sent while no gateway listens: the platform holds it for the next connection.
    fs.dm(users[0], '你在吗？');

    running = await spawnGateway(env, BOOT_MS);
    const answered = (chat: string, text: string) => fs.messagesIn(chat).some((m) => m.current === text);
    await eventually(
      'every answer after the restart',
      () => answered(chats[0], 'echo: 问题 1') && answered(chats[1], 'echo: 问题 2') && answered(chats[0], 'echo: 你在吗？'),
      30_000,
    );
    // The redelivered events are acknowledged and dropped as duplicates: nothing lost, nothing doubled.
    await eventually('every event acknowledged', () => fs.unacked.length === 0, 10_000).catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(fs.events.map((x) => [x.body, x.response]))}`);
    });
    expect(fs.connections).toBe(2);
    expect(fs.events).toHaveLength(3);
    for (const [i, chat] of chats.entries()) {
      const shown = fs.messagesIn(chat).map((m) => m.current);
      expect(shown.filter((t) => t !== 'echo: 你在吗？')).toEqual([`echo: 问题 ${i + 1}`]);
    }
    // Each question asked once per life; the message sent while down once.
    expect(llm.requests.map(lastUser).sort()).toEqual(['你在吗？', '问题 1', '问题 1', '问题 2', '问题 2'].sort());
    await running.stop();
    running = undefined;
  }, 240_000);
});
