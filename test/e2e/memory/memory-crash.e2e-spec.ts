import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { TEST_TOKEN } from '../../support/gateway-harness';
import { createTestDatabase, seedEmbeddedHome, TestDatabase } from '../../support/test-database';
import { turnMemoryPrompt, waitFor } from './memory-spec.support';

type Status = { queue: { pending: number }; index: { ready: boolean }; reindex: { state: string } };

/**
 * The real gateway process, with the index worker switched off by config (`memory.worker.enabled:
 * false`): a committed change then stays between "in Postgres" and "in the index" for as long as
 * the test needs, which is exactly where a crash or a lagging worker leaves it.
 */
describe('memory with the index worker held back (real gateway process)', () => {
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let gw: GatewayProcess | undefined;

  const start = async (worker: boolean) => {
    gw = await spawnGateway({
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: TEST_TOKEN,
      NESTCLAW_MEMORY__WORKER__ENABLED: String(worker),
      NESTCLAW_MEMORY__FILES__ENABLED: 'false',
      NESTCLAW_MEMORY__TRANSCRIPTS: 'false',
      // These tests read what the model was sent: no stored answer may stand in for a model call.
      NESTCLAW_PROVIDERS__IDEMPOTENCY_TTL: '0',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    });
  };
  const api = (path: string, init: { json?: unknown; method?: string } = {}) => gw!.api(path, init);
  const status = async () => (await (await api('/v1/memory/status')).json()) as Status;
  const search = async (q: string) =>
    (
      (await (await api(`/v1/memory/search?mode=keyword&q=${encodeURIComponent(q)}`)).json()) as {
        results: { id: string; content: string }[];
      }
    ).results;
  const chat = (message: string) => turnMemoryPrompt(llm, () => api('/v1/chat', { json: { message } }));

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-memcrash-'));
    seedEmbeddedHome(home);
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({ models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'k', model: 'fake-model' } } }),
    );
  }, 120_000);

  afterAll(async () => {
    await gw?.stop();
    await llm.stop();
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('SIGKILL between the Postgres commit and the index update loses nothing: the queue drains after restart', async () => {
    await start(false);
    await waitFor(async () => (await status()).index.ready, 60_000);
    const stored = await api('/v1/memory', { json: { content: 'The backup tapes are stored in vault 7 at the Leeds office' } });
    expect(stored.status).toBe(201);
    // Committed (queued) but not indexed: the index cannot find it yet.
    expect((await status()).queue.pending).toBe(1);
    expect(await search('backup tapes vault')).toEqual([]);
    await gw!.kill9();

    await start(true);
    await waitFor(async () => {
      const s = await status();
      return s.queue.pending === 0 && s.index.ready && s.reindex.state !== 'running';
    }, 60_000);
    expect((await search('backup tapes vault')).map((r) => r.content)).toEqual([expect.stringContaining('vault 7')]);
    expect(await chat('where are the backup tapes kept?')).toContain('vault 7');
    await gw!.stop();
  }, 180_000);

  it('forget removes a memory from results at once while the worker has not touched the index', async () => {
    await start(true);
    await waitFor(async () => (await status()).index.ready, 60_000);
    const { id } = (await (await api('/v1/memory', { json: { content: '门禁密码是 4711，每月一号更换' } })).json()) as { id: string };
    await waitFor(async () => (await status()).queue.pending === 0 && (await search('门禁密码')).length > 0);
    await gw!.stop();

    await start(false);
    expect((await search('门禁密码')).map((r) => r.id)).toEqual([id]);
    expect((await api(`/v1/memory/${id}`, { method: 'DELETE' })).status).toBe(200);
    // The delete is queued, not applied: the index still holds the rows, yet no result shows them.
    expect((await status()).queue.pending).toBe(1);
    expect(await search('门禁密码')).toEqual([]);
    expect(await chat('门禁密码是多少')).not.toContain('4711');
    await gw!.stop();
  }, 180_000);
});
