import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { HaCluster, startHaCluster } from '../../support/ha-cluster';
import { describeWithHostTools, HostToolPaths, inCi, reportSkip } from '../../support/host-tools';
import { GatewayProcess } from '../../support/gateway-process';
import { createScratchDatabase, ScratchDatabase } from '../../support/scratch-database';
import { realPostgresAvailable } from '../../support/test-database';

const TITLE = 'the memory index on every replica';

interface Status {
  queue: { pending: number };
  index: { ready: boolean };
  reindex: { state: string };
}

/**
 * Issue 24 item 6: each replica keeps its own derived index (under its own home), and every memory
 * change reaches every one of them through the `index_queue` feed, each read with its own cursor.
 * Searches go to one replica directly (not through the balancer) to know whose index answered.
 */
function memoryOnEveryReplica(tools: HostToolPaths) {
  let db: ScratchDatabase;
  let llm: FakeOpenAiServer;
  let ha: HaCluster;

  const replica = (i: number): GatewayProcess => ha.replicas[i]!;
  const status = async (i: number) => (await (await replica(i).api('/v1/memory/status')).json()) as Status;
  const search = async (i: number, q: string) => {
    const res = await replica(i).api(`/v1/memory/search?q=${encodeURIComponent(q)}&mode=keyword`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { results: { id: string }[] }).results.map((r) => r.id);
  };
  /** Polls every 20 ms; returns the milliseconds it took. */
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 10_000) => {
    const started = performance.now();
    while (!(await check())) {
      if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return performance.now() - started;
  };

  beforeAll(async () => {
    db = await createScratchDatabase(process.env.NESTCLAW_TEST_PG_ADMIN_URL!, 'nestclaw_ha_memory');
    llm = new FakeOpenAiServer();
    await llm.start();
    ha = await startHaCluster({ databaseUrl: db.url, llmUrl: llm.url, haproxy: tools.haproxy! });
    // Each fresh replica builds its (empty) index from PostgreSQL first; searches must come from those indexes.
    for (let i = 0; i < 3; i++)
      await until(`replica ${i}'s index`, async () => {
        const s = await status(i);
        return s.index.ready && s.reindex.state !== 'running';
      });
  }, 90_000);

  afterAll(async () => {
    await ha?.stop();
    await llm?.stop();
    await db?.drop();
  });

  it('applies a memory stored through one replica to the index of every other, and a forget everywhere at once', async () => {
    const lags: number[] = [];
    const ids: string[] = [];
    for (const [n, content] of [
      'The generator fuel is diesel, not petrol',
      '备用钥匙在蓝色花盆下面',
      'Invoices go to finance@example.com',
    ].entries()) {
      const res = await replica(n).api('/v1/memory', { json: { content } });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      ids.push(id);
      const query = content.includes('钥匙') ? '钥匙' : content.split(' ')[1];
      for (const other of [0, 1, 2].filter((i) => i !== n)) {
        lags.push(await until(`memory ${n} in replica ${other}'s index`, async () => (await search(other, query)).includes(id)));
      }
    }
    for (let i = 0; i < 3; i++) expect((await status(i)).queue.pending).toBe(0);
    // `/v1/cluster` shows each replica's index and its lag behind the feed.
    const cluster = (await (await replica(0).api('/v1/cluster')).json()) as { memoryIndexes: { self: boolean; pending: number }[] };
    expect(cluster.memoryIndexes).toHaveLength(3);
    expect(cluster.memoryIndexes.filter((m) => m.self)).toHaveLength(1);
    expect(cluster.memoryIndexes.map((m) => m.pending)).toEqual([0, 0, 0]);
    process.stdout.write(`[memory index] lag to another replica's index (ms): ${lags.map((l) => Math.round(l)).join(', ')}\n`);
    // Issue 24: within 1 s on each replica; the slack covers a shared CI machine, the figures are printed above.
    expect(Math.max(...lags)).toBeLessThan(3000);

    // Forgotten through replica 1: gone from every replica's answers at once (recall re-reads PostgreSQL).
    expect((await replica(1).api(`/v1/memory/${ids[0]}`, { method: 'DELETE' })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect(await search(i, 'generator')).not.toContain(ids[0]);
  });

  it('keeps the feed entries a stopped replica has not read, and applies them when it returns', async () => {
    await ha.kill9(2);
    const res = await replica(0).api('/v1/memory', { json: { content: 'The boiler is serviced every March' } });
    const { id } = (await res.json()) as { id: string };
    await until('replica 1 to index it', async () => (await search(1, 'boiler')).includes(id));
    await ha.restart(2);
    await until('the restarted replica to index it', async () => (await search(2, 'boiler')).includes(id));
  });
}

if (realPostgresAvailable()) describeWithHostTools(['haproxy'], TITLE, memoryOnEveryReplica);
else if (inCi() && process.env.NESTCLAW_TEST_DB !== 'embedded' && !process.env.PGPORT) {
  describe(TITLE, () => it('has a PostgreSQL server: CI=true runs every test', () => expect(realPostgresAvailable()).toBe(true)));
} else {
  reportSkip(TITLE, ['a PostgreSQL server (several replicas need DATABASE_URL; the embedded database is single-process)']);
  describe.skip(`${TITLE} [skipped: needs a PostgreSQL server]`, () => memoryOnEveryReplica({}));
}
