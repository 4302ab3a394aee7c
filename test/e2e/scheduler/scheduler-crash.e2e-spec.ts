import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const TOKEN = 'scheduler-crash-token-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** kill -9 of a real gateway process around a job's due time (real clock, real scheduler tick). */
describe('scheduled jobs across kill -9', () => {
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-sched-crash-'));
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        scheduler: { tick: '200ms', grace: '5m' },
      }),
    );
    env = { PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: TOKEN, ...(db.url ? { DATABASE_URL: db.url } : {}) };
  }, 150_000);

  afterAll(async () => {
    await running?.kill9();
    await llm?.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const api = async <T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> => {
    const res = await fetch(`${running!.url}${path}`, {
      method: init.method ?? (init.json ? 'POST' : 'GET'),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: init.json ? JSON.stringify(init.json) : undefined,
    });
    return (await res.json()) as T;
  };
  const runsOf = async (id: string) => (await api<{ runs: { dueAt: string; status: string }[] }>(`/v1/cron/${id}/runs`)).runs;
  const asked = (message: string) => llm.requests.filter((r) => r.body.messages.at(-1)?.content === message).length;
  const addAt = (message: string, inMs: number) =>
    api<{ id: string; nextRunAt: string }>('/v1/cron', { json: { schedule: { at: new Date(Date.now() + inMs).toISOString() }, message } });

  it('runs a job once when the gateway is killed just before its due time and restarted after it', async () => {
    running = await spawnGateway(env);
    const job = await addAt('due while the gateway was dead', 5_000);
    const due = Date.parse(job.nextRunAt);
    await sleep(Math.max(0, due - Date.now() - 1_500));
    expect(await runsOf(job.id)).toEqual([]);
    await running.kill9();
    expect(Date.now()).toBeLessThan(due); // killed just before the due time
    await sleep(Math.max(0, due - Date.now() + 300)); // the due time passes while nothing runs

    running = await spawnGateway(env);
    await eventually('the run at start-up', async () => (await runsOf(job.id)).some((r) => r.status === 'ok'), 20_000);
    await sleep(1_000); // a few more ticks
    expect((await runsOf(job.id)).map((r) => [r.dueAt, r.status])).toEqual([[job.nextRunAt, 'ok']]);
    expect(asked('due while the gateway was dead')).toBe(1);
  }, 90_000);

  it('does not run a due time again when the gateway is killed while that run is in flight', async () => {
    llm.enqueue({ kind: 'hang' }); // the model never answers during this life: the run is in flight when it dies
    const job = await addAt('in flight at the kill', 1_500);
    await eventually('the run in flight', () => asked('in flight at the kill') === 1, 20_000);
    expect((await runsOf(job.id)).map((r) => r.status)).toEqual(['running']);
    await running!.kill9();

    running = await spawnGateway(env);
    await eventually('the cut-short run recorded', async () => (await runsOf(job.id)).some((r) => r.status === 'interrupted'), 20_000);
    await sleep(1_000);
    expect((await runsOf(job.id)).map((r) => [r.dueAt, r.status])).toEqual([[job.nextRunAt, 'interrupted']]);
    expect(asked('in flight at the kill')).toBe(1);
    // The restarted gateway still runs what falls due after it came back, once.
    const next = await addAt('after the restart', 1_000);
    await eventually('the next job', async () => (await runsOf(next.id)).some((r) => r.status === 'ok'), 20_000);
    expect(asked('after the restart')).toBe(1);
    await running!.stop();
    running = undefined;
  }, 90_000);
});
