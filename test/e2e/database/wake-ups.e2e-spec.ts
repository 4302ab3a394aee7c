import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';
import { realPostgresAvailable } from '../../support/test-database';

const alice: FakeUser = { id: 4101, first_name: 'Alice', username: 'alice' };
/** Well under the loops' safety polls (30 s; the scheduler's is set to 1 h here): only a wake-up gets there in time. */
const PROMPT_MS = 10_000;

/**
 * Issue 23: the background loops no longer poll every second; each reacts to new work through a
 * wake-up (an in-process signal, a trigger's NOTIFY from another process, or the due-time timer).
 * Each test waits for the outcome itself within a bound the safety poll cannot meet.
 */
describe('background loops woken instead of polling', () => {
  let h: Harness;
  let tg: FakeTelegramServer;
  /** Another process's session on the same database (a second gateway, the CLI). */
  let other: Pool | undefined;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      config: {
        scheduler: { tick: '1h' },
        channels: { telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [String(alice.id)], poll_timeout: 1 } },
      },
    });
    if (h.db.url) other = new Pool({ connectionString: h.db.url, max: 1 });
  });
  afterAll(async () => {
    await other?.end();
    await h?.stop();
    await tg?.stop();
  });

  const runsOf = (jobId: string) => h.query<{ status: string }>(`SELECT status FROM job_runs WHERE job_id = $1`, [jobId]);
  const queued = async (memoryId: string) => (await h.query(`SELECT 1 FROM index_queue WHERE memory_id = $1`, [memoryId])).length;

  it('runs a job at its due time: the scheduler sleeps until then instead of polling', async () => {
    const at = new Date(Date.now() + 1500).toISOString();
    const res = await h.api('/v1/cron', { json: { schedule: { at }, message: 'due soon' } });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await eventually('the due job to run', async () => (await runsOf(id)).some((r) => r.status === 'ok'), PROMPT_MS);
  });

  it('indexes a memory stored through the API at once (woken in-process)', async () => {
    const res = await h.api('/v1/memory', { json: { content: 'The spare key is under the blue flower pot' } });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await eventually('the memory to leave the index queue', async () => (await queued(id)) === 0, PROMPT_MS);
  });

  (realPostgresAvailable() ? it : it.skip)('runs a job another process added, woken by the NOTIFY its insert sends', async () => {
    const id = randomUUID();
    await other!.query(
      `INSERT INTO scheduled_jobs (id, agent_id, schedule, message, next_run_at) VALUES ($1, 'default', $2, 'from elsewhere', now())`,
      [id, { at: new Date().toISOString() }],
    );
    await eventually('the job added elsewhere to run', async () => (await runsOf(id)).some((r) => r.status === 'ok'), PROMPT_MS);
  });

  (realPostgresAvailable() ? it : it.skip)('indexes a memory another process queued, woken by the NOTIFY its insert sends', async () => {
    // Exactly what POST /v1/memory commits, from another session: truth rows and the queue entry.
    const { rows } = await other!.query<{ id: string }>(
      `WITH m AS (INSERT INTO memories (id, scope, agent_id, content, source, content_hash)
                VALUES (gen_random_uuid(), 'owner', 'default', 'The boiler is serviced every March', 'api', 'h') RETURNING id),
            c AS (INSERT INTO memory_chunks (memory_id, seq, text, token_count, content_hash)
                SELECT id, 0, 'The boiler is serviced every March', 7, 'h' FROM m)
       INSERT INTO index_queue (memory_id, op) SELECT id, 'upsert' FROM m RETURNING memory_id::text AS id`,
    );
    await eventually('the memory queued elsewhere to leave the index queue', async () => (await queued(rows[0].id)) === 0, PROMPT_MS);
  });

  it('delivers at start-up an answer already due for a retry (the channels exist before the scheduler first looks)', async () => {
    const jobId = randomUUID();
    await h.query(
      `INSERT INTO scheduled_jobs (id, agent_id, schedule, message, enabled, next_run_at, deliver_to)
       VALUES ($1, 'default', $2, 'feed the cat', false, NULL, $3)`,
      [jobId, { at: new Date().toISOString() }, { channel: 'telegram', chatId: String(alice.id) }],
    );
    // Its lease ran out while the gateway was down: the first tick, in the scheduler's start-up, retries it.
    await h.query(
      `INSERT INTO job_runs (job_id, due_at, status, finished_at, output, delivery_attempts, delivery_due_at)
       VALUES ($1, now(), 'ok', now(), 'Time to feed the cat', 1, now() - interval '1 second')`,
      [jobId],
    );
    await h.restart();
    await tg.waitFor(() => tg.sentTo(alice.id).some((m) => m.current.includes('feed the cat')), PROMPT_MS, 'the answer due at start-up');
  });

  it("retries an answer's delivery when its lease runs out, without a poll", async () => {
    // A gateway died between running a job and recording its answer as sent: the run is leased for 2 s.
    const jobId = randomUUID();
    await h.query(
      `INSERT INTO scheduled_jobs (id, agent_id, schedule, message, enabled, next_run_at, deliver_to)
       VALUES ($1, 'default', $2, 'water the plants', false, NULL, $3)`,
      [jobId, { at: new Date().toISOString() }, { channel: 'telegram', chatId: String(alice.id) }],
    );
    await h.query(
      `INSERT INTO job_runs (job_id, due_at, status, finished_at, output, delivery_attempts, delivery_due_at)
       VALUES ($1, now(), 'ok', now(), 'Time to water the plants', 1, now() + interval '2 seconds')`,
      [jobId],
    );
    // The restarted gateway's scheduler looks once, finds nothing due, and sleeps until the lease ends.
    await h.restart();
    await tg.waitFor(() => tg.sentTo(alice.id).some((m) => m.current.includes('water the plants')), PROMPT_MS, 'the retried answer');
    await eventually(
      'the run recorded as delivered',
      async () => (await h.query(`SELECT 1 FROM job_runs WHERE job_id = $1 AND delivered_at IS NOT NULL`, [jobId])).length === 1,
    );
  });
});
