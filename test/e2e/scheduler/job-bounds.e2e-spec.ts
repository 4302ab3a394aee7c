import { JobScheduler, SchedulerClock } from '@nestclaw/agent';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';

/** Jobs are bounded: no job copies itself, no schedule runs more often than once a minute, no one holds endless jobs. */
describe('scheduled job bounds', () => {
  let h: Harness;
  const now = new Date('2027-01-04T00:00:00Z');
  let clock = now;

  beforeAll(async () => {
    h = await startHarness({
      config: {
        scheduler: { tick: '1h', max_jobs_per_owner: 3, max_jobs_for_owner: 40 },
        agents: { default: { tools: ['current_time', 'cron'] } },
      },
    });
    jest.spyOn(h.gateway.app.get(SchedulerClock), 'now').mockImplementation(() => clock);
  });
  afterAll(() => h.stop());

  const post = async (body: unknown, token = TEST_TOKEN) => {
    const res = await fetch(`${h.gateway.url}/v1/cron`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { id: string; error?: { code: string; message: string } } };
  };
  const jobCount = async () => (await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM scheduled_jobs WHERE kind = 'job'`))[0].n;
  const removeAll = () => h.query(`DELETE FROM scheduled_jobs WHERE kind = 'job'`);

  it("refuses a job's turn that adds a job with the cron tool, so a job cannot copy itself", async () => {
    await removeAll();
    const copy = '[tool:cron {"action":"add","schedule":{"every":"1m"},"message":"copy me"}]';
    const { status, body: job } = await post({ schedule: { every: '1m' }, message: copy });
    expect(status).toBe(201);
    clock = new Date(now.getTime() + 61_000);
    const scheduler = h.gateway.app.get(JobScheduler);
    await scheduler.tick();
    await scheduler.idle();
    const runs = await h.query<{ status: string }>(`SELECT status FROM job_runs WHERE job_id = $1`, [job.id]);
    expect(runs.map((r) => r.status)).toEqual(['ok']);
    const toolResult = h.llm.requests.at(-1)!.body.messages.at(-1)!;
    expect(toolResult).toMatchObject({ role: 'tool' });
    expect(String(toolResult.content)).toContain('scheduler.automatic_turns_add_jobs');
    expect(await jobCount()).toBe(1);
  });

  it('still lets a person add a job with the cron tool', async () => {
    await removeAll();
    const res = await h.api('/v1/chat', {
      json: { message: '[tool:cron {"action":"add","schedule":{"every":"1h"},"message":"stretch"}]' },
    });
    expect(((await res.json()) as { reply: string }).reply).toContain('"added"');
    expect(await jobCount()).toBe(1);
  });

  it.each(['* * * * * *', '*/30 * * * * *', '0,30 * * * * *', '0-59 9 * * * *'])(
    'refuses the cron form "%s", which would run more than once a minute',
    async (cron) => {
      const { status, body } = await post({ schedule: { cron }, message: 'too often' });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('at least 1 minute') });
    },
  );

  it('accepts a seconds field with a single value (once a minute at most)', async () => {
    await removeAll();
    expect((await post({ schedule: { cron: '30 * * * * *' }, message: 'each minute at :30' })).status).toBe(201);
  });

  it('stops a paired token at its job cap with a 409 that names the limit, even when the adds race', async () => {
    await removeAll();
    const { code } = (await (await h.api('/v1/pair/codes', { json: {} })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'mallory' }),
    });
    const { token } = (await paired.json()) as { token: string };
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post({ schedule: { every: '1h' }, message: `job ${i}` }, token)),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(9);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'job_limit_reached', message: expect.stringContaining('max_jobs_per_owner') });
    }
    // The owner's own cap is separate from the paired token's.
    expect((await post({ schedule: { every: '1h' }, message: 'owner job' })).status).toBe(201);
  });

  it("stops the cron tool at the person's cap with a tool error the model can read", async () => {
    await removeAll();
    await Promise.all(Array.from({ length: 40 }, (_, i) => post({ schedule: { every: '1h' }, message: `owner ${i}` })));
    const res = await h.api('/v1/chat', {
      json: { message: '[tool:cron {"action":"add","schedule":{"every":"1h"},"message":"one more"}]' },
    });
    expect(((await res.json()) as { reply: string }).reply).toContain('max_jobs_for_owner');
    expect(await jobCount()).toBe(40);
  });

  /** Malformed schedules of every form: each must be a 400 saying what a schedule may be, never a 500. */
  const malformed: unknown[] = [
    {},
    null,
    [],
    'every 5m',
    42,
    { every: '' },
    { every: 'soon' },
    { every: '5 minutes' },
    { every: -60000 },
    { every: 0 },
    { every: 1e308 },
    { every: '99999999999999999999d' },
    { every: '1e9d' },
    { every: true },
    { every: {} },
    { every: '1m', at: '2027-01-05T00:00:00Z' },
    { at: 'tomorrow' },
    { at: '' },
    { at: 12345 },
    { at: '2027-02-30T09:00:00Z' },
    { at: '2027-13-01T00:00:00Z' },
    { at: '2027-01-05T25:61:00Z' },
    { at: '+275760-09-13T00:00:01Z' },
    { cron: '' },
    { cron: '* * *' },
    { cron: 'a b c d e' },
    { cron: '61 * * * *' },
    { cron: '0 25 * * *' },
    { cron: '*/0 * * * *' },
    { cron: '0 0 31 2 *' },
    { cron: '0 0 30 2 *' },
    { cron: '0 0 * * 9' },
    { cron: '99999999999999999999 * * * *' },
    { cron: '* * * * * * *' },
    { cron: 'x'.repeat(500) },
    { cron: '0 9 * * 1', tz: 'Mars/Olympus' },
    { cron: '0 9 * * 1', tz: '' },
    { cron: '0 9 * * 1', tz: 8 },
    { cron: '0 9 * * 1', tz: '+08:00' },
    { cron: '0 9 * * 1', extra: true },
    { cron: null },
  ];

  it.each(malformed.map((s) => [JSON.stringify(s), s]))('answers 400 invalid_request for the schedule %s', async (_, schedule) => {
    const { status, body } = await post({ schedule, message: 'fuzz' });
    expect({ status, code: body.error?.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect(body.error!.message).toContain('"every"');
  });
});
