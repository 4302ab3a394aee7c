import { hostname } from 'node:os';
import { IntDatabase, openIntDatabase } from '@nestclaw/testing';
import { ReplicaRegistry } from './replica.registry';

describe('ReplicaRegistry (real database)', () => {
  let int: IntDatabase;

  beforeAll(async () => {
    int = await openIntDatabase();
  });
  afterAll(async () => {
    await int?.close();
  });

  it('writes a row per replica, alive while it beats, gone at once on a clean stop', async () => {
    const a = new ReplicaRegistry(int.db, true);
    const b = new ReplicaRegistry(int.db, true);
    await a.onApplicationBootstrap();
    await b.onApplicationBootstrap();
    try {
      expect(a.id).not.toBe(b.id);
      expect(a.healthy).toBe(true);
      const rows = await a.list();
      expect(rows.filter((r) => [a.id, b.id].includes(r.id)).map((r) => r.alive)).toEqual([true, true]);
      await b.beforeApplicationShutdown();
      expect((await a.list()).some((r) => r.id === b.id)).toBe(false);
      expect(b.healthy).toBe(false);
    } finally {
      await a.beforeApplicationShutdown();
      await b.beforeApplicationShutdown();
    }
  });

  it('calls a replica not seen for 6 s dead, in the one SQL definition every hold uses', async () => {
    const a = new ReplicaRegistry(int.db, true);
    await a.onApplicationBootstrap();
    try {
      const alive = async () =>
        (await int.db.query<{ alive: boolean }>(`SELECT nestclaw_replica_alive($1) AS alive`, [a.id])).rows[0].alive;
      expect(await alive()).toBe(true);
      await int.db.query(`UPDATE replicas SET last_seen = now() - interval '7 seconds' WHERE id = $1`, [a.id]);
      expect(await alive()).toBe(false);
      expect((await int.db.query(`SELECT nestclaw_replica_alive('nobody') AS alive`)).rows[0].alive).toBe(false);
    } finally {
      await a.beforeApplicationShutdown();
    }
  });

  it('forgets at start-up a replica of this host whose process is gone and that stopped beating, not one that beats', async () => {
    const gone = `gone-${process.hrtime.bigint()}`;
    // Not stale yet (seen just now), but no such process: a gateway killed a moment before this one started.
    await int.db.query(`INSERT INTO replicas (id, host, pid, version) VALUES ($1, $2, 999999999, 't')`, [gone, hostname()]);
    // `beating` shares this process's pid (as containers sharing a hostname may): a candidate too, but it beats.
    const beating = new ReplicaRegistry(int.db, true);
    await beating.onApplicationBootstrap();
    const starting = new ReplicaRegistry(int.db, true);
    try {
      await starting.onApplicationBootstrap();
      const ids = (await starting.list()).map((r) => r.id);
      expect(ids).not.toContain(gone);
      expect(ids).toEqual(expect.arrayContaining([beating.id, starting.id]));
    } finally {
      await starting.beforeApplicationShutdown();
      await beating.beforeApplicationShutdown();
      await int.db.query(`DELETE FROM replicas WHERE id = $1`, [gone]);
    }
  });

  it('does not register where it is told not to (the CLI)', async () => {
    const cli = new ReplicaRegistry(int.db, false);
    await cli.onApplicationBootstrap();
    expect(cli.healthy).toBe(false);
    expect((await cli.list()).some((r) => r.id === cli.id)).toBe(false);
  });
});
