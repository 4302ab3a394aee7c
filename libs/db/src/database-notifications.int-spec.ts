import { randomUUID } from 'node:crypto';
import { IntDatabase, openIntDatabase } from '@nestclaw/testing';
import { DatabaseNotifications, EventPayload, WakeUp } from './database-notifications';

/** Waits until `count()` reaches `n`: each wake-up is an event the test sees, not a guessed sleep. */
async function until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('DatabaseNotifications (real database)', () => {
  let int: IntDatabase;
  let notifications: DatabaseNotifications;
  const woken: WakeUp[] = [];
  const count = (kind: WakeUp) => woken.filter((k) => k === kind).length;

  beforeAll(async () => {
    int = await openIntDatabase();
    notifications = new DatabaseNotifications(int.db);
    notifications.on('scheduled_jobs', () => woken.push('scheduled_jobs'));
    notifications.on('memory_index', () => woken.push('memory_index'));
  });
  afterAll(async () => {
    await notifications?.beforeApplicationShutdown();
    await int?.close();
  });

  it('wakes this process at once on a signal, on every database', () => {
    const before = count('memory_index');
    notifications.signal('memory_index');
    expect(count('memory_index')).toBe(before + 1);
  });

  it('listens on a server and not on PGlite, whose sockets share one session', async () => {
    expect(await notifications.ready()).toBe(!int.db.sharedSession);
  });

  it('is woken by a job added in another session, through the trigger in the same statement', async () => {
    if (int.db.sharedSession) return; // PGlite: in-process signals only (see the test above)
    await notifications.ready();
    const before = count('scheduled_jobs');
    await int.db.query(
      `INSERT INTO scheduled_jobs (id, agent_id, schedule, message, next_run_at) VALUES ($1, 'default', '{"every":60000}', 'hello', now() + interval '1 hour')`,
      [randomUUID()],
    );
    await until('the scheduled_jobs wake-up', () => count('scheduled_jobs') > before);
  });

  it('is woken by a memory change queued in another session', async () => {
    if (int.db.sharedSession) return;
    await notifications.ready();
    const before = count('memory_index');
    await int.db.query(`INSERT INTO index_queue (memory_id, op) VALUES ($1, 'delete')`, [randomUUID()]);
    await until('the memory_index wake-up', () => count('memory_index') > before);
  });

  it('reconnects after losing its server session and wakes every loop once, since notifications were lost meanwhile', async () => {
    if (int.db.sharedSession) return;
    await notifications.ready();
    const before = { jobs: count('scheduled_jobs'), memory: count('memory_index') };
    const { rows } = await int.db.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN nestclaw_%'`,
    );
    expect(rows[0].n).toBe(1);
    await until('the re-poll after reconnecting', () => count('scheduled_jobs') > before.jobs && count('memory_index') > before.memory);
    expect(await notifications.ready()).toBe(true);
    const after = count('scheduled_jobs');
    await int.db.query(`SELECT pg_notify('nestclaw_scheduled_jobs', '')`);
    await until('a wake-up on the new connection', () => count('scheduled_jobs') > after);
  });
});

describe('DatabaseNotifications events between replicas (real database)', () => {
  let int: IntDatabase;
  let a: DatabaseNotifications;
  let b: DatabaseNotifications;
  const seenOnA: EventPayload[] = [];
  const seenOnB: EventPayload[] = [];

  beforeAll(async () => {
    int = await openIntDatabase();
    // Two processes' hubs on one database: each has its own listening connection.
    a = new DatabaseNotifications(int.db);
    b = new DatabaseNotifications(int.db);
    a.subscribe('turn_cancel', (p) => seenOnA.push(p));
    b.subscribe('turn_cancel', (p) => seenOnB.push(p));
    // An event sent before a listener listens is not delivered to it: start once both listen.
    await a.ready();
    await b.ready();
  });
  afterAll(async () => {
    await a?.beforeApplicationShutdown();
    await b?.beforeApplicationShutdown();
    await int?.close();
  });

  it('delivers an event to its own process at once, before any round trip, and only once', async () => {
    const sessionId = randomUUID();
    const sent = a.publish('turn_cancel', { sessionId });
    expect(seenOnA.filter((p) => p.sessionId === sessionId)).toEqual([{ sessionId }]);
    await sent;
    if (!int.db.sharedSession) await until('the event on the other hub', () => seenOnB.some((p) => p.sessionId === sessionId));
    // Its own NOTIFY came back to A's listener too and was skipped.
    await a.publish('turn_cancel', { sessionId: 'marker' });
    if (!int.db.sharedSession) await until('the marker on the other hub', () => seenOnB.some((p) => p.sessionId === 'marker'));
    expect(seenOnA.filter((p) => p.sessionId === sessionId)).toHaveLength(1);
  });

  it('reaches the other process with its payload within a second', async () => {
    if (int.db.sharedSession) return; // PGlite: one process owns the database, local delivery only
    expect(await b.ready()).toBe(true);
    const sessionId = randomUUID();
    const started = Date.now();
    await a.publish('turn_cancel', { sessionId, turnId: 't-1' });
    await until('the event on the other hub', () => seenOnB.some((p) => p.sessionId === sessionId), 1000);
    expect(seenOnB.find((p) => p.sessionId === sessionId)).toEqual({ sessionId, turnId: 't-1' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a payload that is content rather than ids', async () => {
    await expect(a.publish('turn_cancel', { text: 'x'.repeat(5000) })).rejects.toThrow(/send ids/);
  });

  it('receives events again after its listener lost the server and reconnected', async () => {
    if (int.db.sharedSession) return;
    expect(await b.ready()).toBe(true);
    const listeners = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN nestclaw_%'`;
    const before = (await int.db.query<{ pid: number }>(listeners)).rows.map((r) => r.pid);
    expect(before).toHaveLength(2);
    await int.db.query(`SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid`, [before]);
    // Both listen again on new sessions (first reconnect after 1 s); an event sent then arrives.
    const deadline = Date.now() + 5000;
    for (;;) {
      const now = (await int.db.query<{ pid: number }>(listeners)).rows.map((r) => r.pid);
      if (now.filter((pid) => !before.includes(pid)).length === 2) break;
      if (Date.now() > deadline) throw new Error('the listeners did not come back');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await b.ready()).toBe(true);
    const sessionId = randomUUID();
    await a.publish('turn_cancel', { sessionId });
    await until('the event after reconnecting', () => seenOnB.some((p) => p.sessionId === sessionId), 1000);
  });
});
