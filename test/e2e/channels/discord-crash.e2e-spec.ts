import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DiscordUser, FakeDiscordServer } from '../../fixtures/fake-discord.server';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const erin: DiscordUser = { id: '700000000000000042', username: 'erin' };
/** A boot may take long on a loaded machine (2 cores shared with builds); test timeouts allow 4 such boots. */
const BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);

describe('Discord channel across a crash', () => {
  let dc: FakeDiscordServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;

  beforeAll(async () => {
    dc = new FakeDiscordServer();
    await dc.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-discord-crash-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        channels: { discord: { enabled: true, token: dc.token, api_root: dc.url, allow_from: [erin.id], stream_edit_interval: 5000 } },
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
    await dc?.stop();
    await llm?.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('a reply Discord created but never confirmed before kill -9 is found again by its nonce, not sent twice', async () => {
    running = await spawnGateway(env, BOOT_MS);
    await dc.waitFor(() => dc.connected, 15_000, 'gateway connection');
    dc.stallNextPost();
    const { channelId } = dc.dm(erin, 'answer me once');
    await dc.waitFor(() => dc.postedTo(channelId).length === 1, 15_000, 'the reply created on Discord');
    const first = dc.postedTo(channelId)[0];
    expect(first.current).toBe('echo: answer me once');
    await running.kill9();

    running = await spawnGateway(env, BOOT_MS);
    // The restart repeats the send with the same nonce: Discord hands back the message it created.
    await dc.waitFor(
      () => dc.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`).length >= 2,
      20_000,
      'the send repeated after the restart',
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(dc.postedTo(channelId).map((m) => m.current)).toEqual(['echo: answer me once']);
    const posts = dc.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`);
    expect(posts.map((p) => p.body?.nonce)).toEqual([posts[0].body?.nonce, posts[0].body?.nonce]);
    expect(posts.every((p) => p.body?.enforce_nonce === true)).toBe(true);
    expect(llm.requests).toHaveLength(1); // the stored answer was delivered, not asked for again
    await running.stop();
    running = undefined;
  }, 360_000);
});
