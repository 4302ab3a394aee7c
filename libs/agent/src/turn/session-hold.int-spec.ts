import { randomUUID } from 'node:crypto';
import { configSchema } from '@nestclaw/config';
import { DatabaseNotifications, ReplicaRegistry } from '@nestclaw/db';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import { SessionHoldRepository } from '../session/session-hold.repository';
import { OpenedTurnRows, TurnRepository } from '../session/turn.repository';
import { AdmitStage } from './admit.stage';
import { SessionHold } from './session-hold';

/** One replica as the turn pipeline sees it: its registry (beating), its hold and its repository. */
interface Replica {
  id: string;
  registry: ReplicaRegistry;
  hold: SessionHold;
  turns: TurnRepository;
  notifications: DatabaseNotifications;
}

describe('SessionHold: one turn per session across replicas (real database, two replicas)', () => {
  let int: IntDatabase;
  let a: Replica;
  let b: Replica;

  async function replica(config = configSchema.parse({})): Promise<Replica> {
    const registry = new ReplicaRegistry(int.db, true);
    await registry.onApplicationBootstrap();
    const turns = new TurnRepository(int.db);
    const notifications = new DatabaseNotifications(int.db);
    const hold = new SessionHold(new SessionHoldRepository(int.db), registry, notifications, { get: () => config } as never);
    return { id: registry.id, registry, hold, turns, notifications };
  }

  beforeAll(async () => {
    int = await openIntDatabase();
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    for (const r of [a, b]) {
      await r?.registry.beforeApplicationShutdown();
      await r?.notifications.beforeApplicationShutdown();
    }
    await int?.close();
  });

  /** Opens a turn of `sessionId` as the open stage does: through the hold, waiting while another replica runs one. */
  function open(r: Replica, sessionId: string, content: string, signal?: AbortSignal) {
    const turnId = randomUUID();
    const opened = r.hold.take(
      sessionId,
      turnId,
      () =>
        r.turns.openTurn({ sessionId, turnId, agentId: 'main', content, channel: 'http', create: true, historyLimit: 50, replica: r.id }),
      signal,
    );
    return { turnId, opened: opened as Promise<OpenedTurnRows> };
  }

  /** Closes a turn as the close stage does: its reply, the user row ok, the hold released in the same statement. */
  async function close(r: Replica, sessionId: string, turnId: string, reply: string) {
    await r.turns.recordProgress({
      sessionId,
      turnId,
      messages: [{ role: 'assistant', content: reply }],
      calls: [],
      close: { status: 'ok', reply, channel: 'http' },
    });
    r.hold.closed(sessionId, turnId);
  }

  /** A turn opened (holding its session) by a replica dead for 7 s, and never closed: what a kill leaves. */
  async function leftByDeadReplica(sessionId: string, content: string): Promise<{ dead: string; turnId: string }> {
    const dead = `dead-${uniqueId('r')}`;
    await int.db.query(
      `INSERT INTO replicas (id, host, pid, version, last_seen) VALUES ($1, 'elsewhere', 1, 't', now() - interval '7 seconds')`,
      [dead],
    );
    const turnId = randomUUID();
    await a.turns.openTurn({ sessionId, turnId, agentId: 'main', content, channel: 'http', create: true, historyLimit: 50, replica: dead });
    return { dead, turnId };
  }

  const holdOf = async (sessionId: string) =>
    (
      await int.db.query<{ turn_replica: string | null; turn_id: string | null; turn_next: string | null }>(
        `SELECT turn_replica, turn_id, turn_next FROM sessions WHERE id = $1`,
        [sessionId],
      )
    ).rows[0];

  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Whether a promise has settled by now (checked once the database shows the state that proves it should not have). */
  const settled = async (p: Promise<unknown>) =>
    Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((r) => setImmediate(() => r(false))),
    ]);

  it('takes the hold in the opening statement and releases it in the closing one', async () => {
    const s = uniqueId('s');
    const first = open(a, s, 'one');
    await first.opened;
    expect(await holdOf(s)).toEqual({ turn_replica: a.id, turn_id: first.turnId, turn_next: null });
    await close(a, s, first.turnId, 'echo: one');
    expect(await holdOf(s)).toEqual({ turn_replica: null, turn_id: null, turn_next: null });
  });

  it('makes a second replica wait while the first holds the session, and run after it with its turn in the history', async () => {
    const s = uniqueId('s');
    const first = open(a, s, 'one');
    await first.opened;
    const second = open(b, s, 'two');
    // B asked, found the session busy and stands next in line: nothing of its turn is stored.
    await until('B next in line', async () => (await holdOf(s)).turn_next === b.id);
    expect(await settled(second.opened)).toBe(false);
    const stored = await int.db.query<{ content: string }>(`SELECT content FROM messages WHERE session_id = $1 ORDER BY seq`, [s]);
    expect(stored.rows.map((m) => m.content)).toEqual(['one']);

    const releasedAt = Date.now();
    await close(a, s, first.turnId, 'echo: one');
    const opened = await second.opened;
    const waitedMs = Date.now() - releasedAt;
    process.stdout.write(`[session hold] B opened ${waitedMs} ms after A released (notification: ${b.notifications.listens})\n`);
    expect(opened.history.map((m) => [m.role, m.content])).toEqual([
      ['user', 'one'],
      ['assistant', 'echo: one'],
    ]);
    expect(await holdOf(s)).toEqual({ turn_replica: b.id, turn_id: second.turnId, turn_next: null });
    await close(b, s, second.turnId, 'echo: two');
  });

  it('gives the session to the replica waiting first, not to the releasing replica’s next turn', async () => {
    const s = uniqueId('s');
    const one = open(a, s, 'one');
    await one.opened;
    const two = open(b, s, 'two');
    await until('B next in line', async () => (await holdOf(s)).turn_next === b.id);
    await close(a, s, one.turnId, 'echo: one');
    // A's lane moves straight on to its next message of the session: B asked first, so B goes first.
    const three = open(a, s, 'three');
    await two.opened;
    expect((await holdOf(s)).turn_replica).toBe(b.id);
    await until('A next in line', async () => (await holdOf(s)).turn_next === a.id);
    expect(await settled(three.opened)).toBe(false);
    await close(b, s, two.turnId, 'echo: two');
    const opened = await three.opened;
    expect(opened.history.map((m) => m.content)).toEqual(['one', 'echo: one', 'two', 'echo: two']);
    await close(a, s, three.turnId, 'echo: three');
  });

  it('takes over the hold of a dead replica at once, marking its unfinished turn interrupted', async () => {
    const s = uniqueId('s');
    const { dead, turnId: cut } = await leftByDeadReplica(s, 'cut short');
    await a.turns.openCall(s, cut, { modelName: 'm', provider: 'p', model: 'm', attempt: 1, isFallback: false }).then((c) => c.commit());
    expect((await holdOf(s)).turn_replica).toBe(dead);

    const next = open(b, s, 'next');
    const opened = await next.opened;
    expect(await holdOf(s)).toMatchObject({ turn_replica: b.id, turn_id: next.turnId });
    expect(opened.history.map((m) => [m.content, m.status])).toEqual([['cut short', 'interrupted']]);
    const calls = await int.db.query<{ status: string }>(`SELECT status FROM llm_calls WHERE turn_id = $1`, [cut]);
    expect(calls.rows).toEqual([{ status: 'interrupted' }]);
    await close(b, s, next.turnId, 'echo: next');
  });

  it('start-up recovery leaves a live replica’s running turn alone and interrupts a dead one’s', async () => {
    const running = uniqueId('s');
    const left = uniqueId('s');
    const live = open(a, running, 'running on A');
    await live.opened;
    const { turnId: leftTurn } = await leftByDeadReplica(left, 'left');
    const call = await a.turns.openCall(running, live.turnId, { modelName: 'm', provider: 'p', model: 'm', attempt: 1, isFallback: false });
    await call.commit();

    // B starts: what it finds open is interrupted, unless a live replica is running it.
    await b.hold.interruptLeftovers();
    const status = async (turnId: string) =>
      (await int.db.query<{ status: string }>(`SELECT status FROM messages WHERE turn_id = $1 AND role = 'user'`, [turnId])).rows[0].status;
    expect(await status(live.turnId)).toBe('pending');
    expect(await status(leftTurn)).toBe('interrupted');
    const calls = await int.db.query<{ status: string }>(`SELECT status FROM llm_calls WHERE turn_id = $1`, [live.turnId]);
    expect(calls.rows).toEqual([{ status: 'started' }]);
    // The dead replica's hold on its session was released with its turn.
    expect((await holdOf(left)).turn_replica).toBeNull();
    await close(a, running, live.turnId, 'echo: running on A');
  });

  it('interrupts at once the turns of a replica whose row is gone (forgotten at start-up as proven dead), not yet stale', async () => {
    const c = await replica();
    const s = uniqueId('s');
    const turn = open(c, s, 'running on C');
    await turn.opened;
    await c.registry.beforeApplicationShutdown(); // its row goes, as ReplicaRegistry's start-up forgets a killed one's
    await c.notifications.beforeApplicationShutdown();
    await b.hold.interruptLeftovers();
    expect((await int.db.query<{ status: string }>(`SELECT status FROM messages WHERE turn_id = $1`, [turn.turnId])).rows).toEqual([
      { status: 'interrupted' },
    ]);
    expect((await holdOf(s)).turn_replica).toBeNull();
  });

  it('releases a hold the turn took when the lane moves on without a closing statement (an error, a pause)', async () => {
    const s = uniqueId('s');
    const lane = new AdmitStage({} as never, a.hold);
    await expect(
      lane.lane(s, async () => {
        await open(a, s, 'fails before it closes').opened;
        expect((await holdOf(s)).turn_replica).toBe(a.id);
        throw new Error('the prepare stage failed');
      }),
    ).rejects.toThrow('the prepare stage failed');
    expect((await holdOf(s)).turn_replica).toBeNull();
  });

  it('takes the hold for a resumed turn by its own statement, waiting like an opening one', async () => {
    const s = uniqueId('s');
    const first = open(a, s, 'one');
    await first.opened;
    const paused = randomUUID();
    const resumed = b.hold.takeFor(s, paused);
    await until('B next in line', async () => (await holdOf(s)).turn_next === b.id);
    await close(a, s, first.turnId, 'echo: one');
    await resumed;
    expect(await holdOf(s)).toMatchObject({ turn_replica: b.id, turn_id: paused });
    await b.hold.releaseLeftover(s);
    expect((await holdOf(s)).turn_replica).toBeNull();
  });

  it('stops waiting when the caller goes away, and refuses with conflict past the longest a turn can hold a session', async () => {
    const s = uniqueId('s');
    const first = open(a, s, 'one');
    await first.opened;
    const gone = new AbortController();
    const waiting = open(b, s, 'two', gone.signal);
    await until('B next in line', async () => (await holdOf(s)).turn_next === b.id);
    gone.abort();
    await expect(waiting.opened).rejects.toMatchObject({ code: 'cancelled' });

    const impatient = await replica(configSchema.parse({ tools: { approval: { timeout: 300 } }, providers: { timeout_budget: 300 } }));
    try {
      await expect(open(impatient, s, 'three').opened).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining(`busy with a turn on replica ${a.id}`),
      });
    } finally {
      await impatient.registry.beforeApplicationShutdown();
      await impatient.notifications.beforeApplicationShutdown();
    }
    await close(a, s, first.turnId, 'echo: one');
  });
});
