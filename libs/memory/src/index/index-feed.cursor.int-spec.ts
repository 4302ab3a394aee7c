import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplicaRegistry } from '@nestclaw/db';
import { IntDatabase, openIntDatabase } from '@nestclaw/testing';
import { IndexQueueRepository } from '../queue/index-queue.repository';
import { IndexFeedCursor } from './index-feed.cursor';

const BACKOFF = { maxAttempts: 2, baseMs: 1, maxMs: 10 };

describe('IndexFeedCursor: every index reads the whole change feed (real database)', () => {
  let int: IntDatabase;
  let feed: IndexQueueRepository;
  const dirs: string[] = [];
  const replicas: ReplicaRegistry[] = [];
  const opened = new Map<IndexFeedCursor, { dir: string; replica: ReplicaRegistry }>();

  beforeAll(async () => {
    int = await openIntDatabase();
    feed = new IndexQueueRepository(int.db);
  });
  afterAll(async () => {
    for (const r of replicas) await r.beforeApplicationShutdown();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await int?.close();
  });

  /** A replica's index: its own directory (key), its own registered replica. */
  async function index(at?: string, as?: ReplicaRegistry): Promise<IndexFeedCursor> {
    if (at && as) {
      const reopened = new IndexFeedCursor(feed, as);
      reopened.open(at);
      return reopened;
    }
    const replica = new ReplicaRegistry(int.db, true);
    await replica.onApplicationBootstrap();
    replicas.push(replica);
    const dir = mkdtempSync(join(tmpdir(), 'nestclaw-feed-'));
    dirs.push(dir);
    const cursor = new IndexFeedCursor(feed, replica);
    cursor.open(dir);
    await cursor.load();
    opened.set(cursor, { dir, replica });
    return cursor;
  }
  const queue = async (n: number) => {
    const ids: string[] = Array.from({ length: n }, () => randomUUID());
    await int.db.query(`INSERT INTO index_queue (memory_id, op) SELECT unnest($1::uuid[]), 'upsert'`, [ids]);
    return ids;
  };
  const drain = async (c: IndexFeedCursor) => {
    const seen: string[] = [];
    for (let page = await c.read(100); page.length; page = await c.read(100)) seen.push(...page.map((e) => e.memoryId));
    await c.save();
    return seen;
  };
  const left = async (ids: string[]) =>
    Number((await int.db.query(`SELECT count(*) AS n FROM index_queue WHERE memory_id = ANY($1::uuid[])`, [ids])).rows[0].n);

  it('hands every change to every index, and deletes it once all have passed it', async () => {
    const a = await index();
    const b = await index();
    // Each index has a cursor once it saved one; from then on the feed keeps entries for it.
    await drain(a);
    await drain(b);
    const ids = await queue(3);
    expect((await drain(a)).filter((m) => ids.includes(m))).toEqual(ids);
    expect(await left(ids)).toBe(3); // b has not read them yet
    expect((await drain(b)).filter((m) => ids.includes(m))).toEqual(ids);
    await a.save(); // nothing new: no statement; the feed was pruned by b's save
    expect(await left(ids)).toBe(0);
  });

  it('hands out ids in commit order: a writer waits for an earlier uncommitted one, so a reader never passes a gap', async () => {
    // PGlite's sockets share one session: no second transaction to interleave there.
    if (int.db.sharedSession) return;
    const a = await index();
    await drain(a);
    const early: string = randomUUID();
    const late: string = randomUUID();
    const tx = await int.db.pool.connect();
    let lateDone = false;
    try {
      await tx.query('BEGIN');
      await tx.query(`INSERT INTO index_queue (memory_id, op) VALUES ($1, 'upsert')`, [early]);
      const second = int.db.query(`INSERT INTO index_queue (memory_id, op) VALUES ($1, 'upsert')`, [late]).then(() => (lateDone = true));
      // The second writer is held at the feed's lock until the first commits; nothing is readable yet.
      expect(await drain(a)).toEqual([]);
      expect(lateDone).toBe(false);
      await tx.query('COMMIT');
      await second;
    } finally {
      tx.release();
    }
    expect(await drain(a)).toEqual([early, late]);
  });

  it('keeps a failed entry for its retry across a restart, and parks it after the last attempt', async () => {
    const a = await index();
    await drain(a);
    const [bad, good] = await queue(2);
    const page = await a.read(100);
    const badEntry = page.filter((e) => e.memoryId === bad);
    a.succeeded(page.filter((e) => e.memoryId === good).map((e) => e.id));
    expect(await a.failed(badEntry, 'model down', BACKOFF)).toBe(0);
    await a.save();
    // A restart reads from before the failed entry again.
    const { dir, replica } = opened.get(a)!;
    const again = await index(dir, replica);
    await again.load();
    expect((await again.read(100)).map((e) => e.memoryId)).toEqual([bad, good]);
    expect(await a.failed(badEntry, 'model down', BACKOFF)).toBe(1);
    await a.save();
    const parked = await feed.parked(100);
    expect(parked.map((p) => p.memoryId)).toContain(bad);
  });

  it('says an index is behind when the feed was pruned past its cursor (its replica was away for over a day)', async () => {
    const away = await index();
    await drain(away);
    await int.db.query(`UPDATE index_cursors SET updated_at = now() - interval '2 days', replica_id = 'gone'`);
    await queue(1);
    const other = await index();
    await drain(other); // prunes past the away index's cursor, which no longer counts
    const { dir, replica } = opened.get(away)!;
    expect((await (await index(dir, replica)).load()).behind).toBe(true);
    expect((await (await index(opened.get(other)!.dir, opened.get(other)!.replica)).load()).behind).toBe(false);
  });
});
