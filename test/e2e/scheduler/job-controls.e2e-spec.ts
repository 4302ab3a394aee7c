import { JobScheduler, SchedulerClock } from '@nestclaw/agent';
import { Harness, startHarness } from '../../support/gateway-harness';

type Job = { id: string; state: string; enabled: boolean; nextRunAt: string | null; lastRun: { dueAt: string; status: string } | null };
type ErrorBody = { error: { code: string; message: string } };

/** Pause, resume, run now and recent runs (the control UI's Jobs page), with the scheduler's clock pinned. */
describe('scheduled job controls', () => {
  let h: Harness;
  let now = new Date('2028-02-01T00:00:00Z');
  const at = (iso: string) => (now = new Date(iso));
  const tick = async () => {
    const s = h.gateway.app.get(JobScheduler);
    await s.tick();
    await s.idle();
  };

  beforeAll(async () => {
    h = await startHarness({ config: { scheduler: { tick: '1h' } } });
    jest.spyOn(h.gateway.app.get(SchedulerClock), 'now').mockImplementation(() => now);
  });
  afterAll(() => h.stop());

  const add = async (schedule: unknown, message: string, token?: string) => {
    const res = await fetch(`${h.gateway.url}/v1/cron`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token ?? 'test-token-0123456789'}`, 'content-type': 'application/json' },
      body: JSON.stringify({ schedule, message }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as Job;
  };
  const post = (path: string, token = 'test-token-0123456789') =>
    fetch(`${h.gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const listed = async (id: string) => ((await (await h.api('/v1/cron')).json()) as { jobs: Job[] }).jobs.find((j) => j.id === id)!;
  const asked = (message: string) => h.llm.requests.filter((r) => r.body.messages.at(-1)?.content === message).length;

  it('pauses a job (no runs while paused) and resumes it at its next due time, skipping the ones it missed', async () => {
    at('2028-02-01T00:00:00Z');
    const job = await add({ every: '1h' }, 'hourly check');
    expect(await listed(job.id)).toMatchObject({ state: 'active', lastRun: null, nextRunAt: '2028-02-01T01:00:00.000Z' });

    const paused = await post(`/v1/cron/${job.id}/pause`);
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ id: job.id, state: 'paused', enabled: false, nextRunAt: '2028-02-01T01:00:00.000Z' });
    // Pausing again changes nothing.
    expect(((await (await post(`/v1/cron/${job.id}/pause`)).json()) as Job).state).toBe('paused');
    at('2028-02-01T03:30:00Z');
    await tick();
    expect(asked('hourly check')).toBe(0);
    // Running a paused job would resume it: refused with what to do.
    const run = await post(`/v1/cron/${job.id}/run`);
    expect(run.status).toBe(409);
    expect(((await run.json()) as ErrorBody).error).toEqual({ code: 'conflict', message: expect.stringContaining('resume it first') });

    const resumed = await post(`/v1/cron/${job.id}/resume`);
    expect(resumed.status).toBe(200);
    // The interval keeps its phase; the three hours it was paused are not made up.
    expect(await resumed.json()).toMatchObject({ state: 'active', enabled: true, nextRunAt: '2028-02-01T04:00:00.000Z' });
    at('2028-02-01T04:00:01Z');
    await tick();
    expect(asked('hourly check')).toBe(1);
    expect(await listed(job.id)).toMatchObject({ state: 'active', lastRun: { dueAt: '2028-02-01T04:00:00.000Z', status: 'ok' } });
  });

  it('runs a job now once, then keeps its schedule; the newest runs come back oldest first', async () => {
    at('2028-03-01T00:00:00Z');
    const job = await add({ cron: '0 9 * * *', tz: 'Asia/Shanghai' }, '早安提醒');
    for (const t of ['2028-03-01T00:10:00Z', '2028-03-01T00:20:00Z', '2028-03-01T00:30:00Z']) {
      at(t);
      const res = await post(`/v1/cron/${job.id}/run`);
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ queued: job.id });
      await tick();
    }
    expect(asked('早安提醒')).toBe(3);
    expect(await listed(job.id)).toMatchObject({ state: 'active', nextRunAt: '2028-03-01T01:00:00.000Z' });
    const all = ((await (await h.api(`/v1/cron/${job.id}/runs`)).json()) as { runs: { dueAt: string; status: string }[] }).runs;
    expect(all.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    const newest = ((await (await h.api(`/v1/cron/${job.id}/runs?limit=2`)).json()) as { runs: { dueAt: string }[] }).runs;
    expect(newest.map((r) => r.dueAt)).toEqual(all.slice(1).map((r) => r.dueAt));
  });

  it('refuses to pause or resume a finished one-time job, and a paused one-time job whose time passed', async () => {
    at('2028-04-01T00:00:00Z');
    const done = await add({ at: '2028-04-01T01:00:00Z' }, 'once only');
    at('2028-04-01T01:00:01Z');
    await tick();
    expect((await listed(done.id)).state).toBe('finished');
    for (const action of ['pause', 'resume']) {
      const res = await post(`/v1/cron/${done.id}/${action}`);
      expect(res.status).toBe(409);
      expect(((await res.json()) as ErrorBody).error.message).toContain('has finished');
    }

    const missed = await add({ at: '2028-04-01T02:00:00Z' }, 'once, paused');
    expect((await post(`/v1/cron/${missed.id}/pause`)).status).toBe(200);
    at('2028-04-01T03:00:00Z');
    const res = await post(`/v1/cron/${missed.id}/resume`);
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).error.message).toContain('nothing is left to resume');
    expect(asked('once, paused')).toBe(0);
  });

  it("answers another person's job, an unknown id and a bad limit with a 4xx in the error shape", async () => {
    const { code } = (await (await h.api('/v1/pair/codes', { json: {} })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'job-controls' }),
    });
    const stranger = ((await paired.json()) as { token: string }).token;
    at('2028-05-01T00:00:00Z');
    const owners = await add({ every: '1d' }, "the owner's job");
    for (const action of ['pause', 'resume', 'run']) {
      for (const [id, token] of [
        [owners.id, stranger],
        ['00000000-0000-0000-0000-000000000000', undefined],
        ['not-a-uuid', undefined],
      ] as const) {
        const res = await post(`/v1/cron/${id}/${action}`, token);
        expect([action, id, res.status, ((await res.json()) as ErrorBody).error.code]).toEqual([action, id, 404, 'not_found']);
      }
    }
    expect((await listed(owners.id)).state).toBe('active');
    for (const limit of ['0', '501', 'many', '1.5']) {
      const res = await h.api(`/v1/cron/${owners.id}/runs?limit=${limit}`);
      expect([limit, res.status, ((await res.json()) as ErrorBody).error.code]).toEqual([limit, 400, 'invalid_request']);
    }
    expect((await h.api(`/v1/cron/${owners.id}/runs?limit=5&x=1`)).status).toBe(400);
  });
});
