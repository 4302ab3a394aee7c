import { JobScheduler, SchedulerClock } from '@nestclaw/agent';
import { DatabaseService } from '@nestclaw/db';
import { RunningGateway, startGateway } from '../../../apps/gateway/src/bootstrap';
import { Harness, startHarness } from '../../support/gateway-harness';

/** Scheduled jobs on the real database with the scheduler's clock under test control. */
describe('scheduled jobs', () => {
  let h: Harness;
  let now = new Date('2027-01-04T00:00:00Z');
  const pinClock = (gw: RunningGateway) => jest.spyOn(gw.app.get(SchedulerClock), 'now').mockImplementation(() => now);
  const at = (iso: string) => (now = new Date(iso));
  const tick = async (gw: RunningGateway = h.gateway) => {
    const s = gw.app.get(JobScheduler);
    await s.tick();
    await s.idle();
  };

  beforeAll(async () => {
    h = await startHarness({ config: { scheduler: { tick: '1h' }, agents: { default: { tools: ['current_time', 'cron'] } } } });
    pinClock(h.gateway);
  });
  afterAll(() => h.stop());

  async function addJob(body: Record<string, unknown>, token?: string) {
    const res = await fetch(`${h.gateway.url}/v1/cron`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token ?? 'test-token-0123456789'}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { id: string; nextRunAt: string; error?: { message: string } } };
  }
  const runs = async (jobId: string) =>
    (
      await h.gateway.app
        .get(DatabaseService)
        .pool.query<{ due_at: Date; status: string }>(`SELECT due_at, status FROM job_runs WHERE job_id = $1 ORDER BY due_at`, [jobId])
    ).rows.map((r) => [r.due_at.toISOString(), r.status]);
  const asked = (message: string) => h.llm.requests.filter((r) => r.body.messages.at(-1)?.content === message).length;

  it('fires a one-shot job once, in its own session, and then disables it', async () => {
    at('2027-01-04T00:00:00Z');
    const { status, body: job } = await addJob({ schedule: { at: '2027-01-04T09:00:00+08:00' }, message: 'remind me to stretch' });
    expect(status).toBe(201);
    expect(job.nextRunAt).toBe('2027-01-04T01:00:00.000Z');
    at('2027-01-04T00:59:59Z');
    await tick();
    expect(await runs(job.id)).toEqual([]);
    at('2027-01-04T01:00:01Z');
    await tick();
    at('2027-01-04T01:00:30Z');
    await tick();
    expect(await runs(job.id)).toEqual([['2027-01-04T01:00:00.000Z', 'ok']]);
    expect(asked('remind me to stretch')).toBe(1);
    const { messages } = (await (await h.api(`/v1/sessions/cron:${job.id}/messages`)).json()) as {
      messages: { role: string; content: string }[];
    };
    expect(messages.map((m) => m.content)).toEqual(['remind me to stretch', 'echo: remind me to stretch']);
    const { jobs } = (await (await h.api('/v1/cron')).json()) as { jobs: { id: string; enabled: boolean; nextRunAt: string | null }[] };
    expect(jobs.find((j) => j.id === job.id)).toMatchObject({ enabled: false, nextRunAt: null });
  });

  it('fires a cron job at each due time in its time zone, across a daylight-saving change', async () => {
    at('2027-03-25T00:00:00Z');
    const { body: job } = await addJob({ schedule: { cron: '30 2 * * *', tz: 'Europe/Berlin' }, message: 'nightly report' });
    const dues = ['2027-03-25T01:30:00Z', '2027-03-26T01:30:00Z', '2027-03-27T01:30:00Z', '2027-03-28T01:00:00Z', '2027-03-29T00:30:00Z'];
    for (const due of dues) {
      at(new Date(Date.parse(due) - 60_000).toISOString());
      await tick();
      at(new Date(Date.parse(due) + 1_000).toISOString());
      await tick();
      await tick();
    }
    expect(await runs(job.id)).toEqual(dues.map((d) => [new Date(d).toISOString(), 'ok']));
    expect(asked('nightly report')).toBe(dues.length);
  });

  it('runs a job due while the gateway was stopped once at start-up within grace, and records it missed outside', async () => {
    at('2027-05-01T00:00:00Z');
    const { body: soon } = await addJob({ schedule: { at: '2027-05-01T02:00:00Z' }, message: 'late but fine' });
    const { body: stale } = await addJob({ schedule: { at: '2027-05-01T01:00:00Z' }, message: 'too late' });
    await h.restart();
    pinClock(h.gateway);
    at('2027-05-01T02:03:00Z'); // 3 minutes after one, 63 after the other; grace is 5 minutes
    await tick();
    await tick();
    expect(await runs(soon.id)).toEqual([['2027-05-01T02:00:00.000Z', 'ok']]);
    expect(await runs(stale.id)).toEqual([['2027-05-01T01:00:00.000Z', 'missed']]);
    expect(asked('late but fine')).toBe(1);
    expect(asked('too late')).toBe(0);
  });

  it('never runs a due job twice when two gateways share the database', async () => {
    const second = await startGateway({ env: h.env, port: 0, logLevels: ['error'], watchConfig: false });
    try {
      pinClock(second);
      at('2027-06-01T00:00:00Z');
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await addJob({ schedule: { every: '1h' }, message: `shared job ${i}` })).body.id);
      for (const t of ['2027-06-01T01:00:01Z', '2027-06-01T02:00:01Z']) {
        at(t);
        await Promise.all([tick(h.gateway), tick(second), tick(h.gateway), tick(second)]);
      }
      for (const [i, id] of ids.entries()) {
        expect(await runs(id)).toEqual([
          ['2027-06-01T01:00:00.000Z', 'ok'],
          ['2027-06-01T02:00:00.000Z', 'ok'],
        ]);
        expect(asked(`shared job ${i}`)).toBe(2);
      }
    } finally {
      await second.close();
    }
  });

  it('shows and removes a job only for the person who made it; the owner sees all', async () => {
    const token = async (name: string) => {
      const { code } = (await (await h.api('/v1/pair/codes', { json: {} })).json()) as { code: string };
      const res = await fetch(`${h.gateway.url}/v1/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, name }),
      });
      return ((await res.json()) as { token: string }).token;
    };
    const alice = await token('alice');
    const bob = await token('bob');
    at('2027-07-01T00:00:00Z');
    const { status, body: job } = await addJob({ schedule: { every: '1d' }, message: "alice's reminder" }, alice);
    expect(status).toBe(201);
    const list = async (t: string) =>
      (
        (await (await fetch(`${h.gateway.url}/v1/cron`, { headers: { authorization: `Bearer ${t}` } })).json()) as {
          jobs: { id: string }[];
        }
      ).jobs.map((j) => j.id);
    expect(await list(alice)).toEqual([job.id]);
    expect(await list(bob)).toEqual([]);
    expect(await list('test-token-0123456789')).toContain(job.id);
    const del = await fetch(`${h.gateway.url}/v1/cron/${job.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${bob}` } });
    expect(del.status).toBe(404);
    const mine = await fetch(`${h.gateway.url}/v1/cron/${job.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${alice}` } });
    expect(mine.status).toBe(200);
    expect(await list(alice)).toEqual([]);
  });

  it("lets the agent schedule a reminder with the cron tool; it fires in that conversation and the tool sees only that conversation's jobs", async () => {
    at('2027-09-01T08:00:00Z');
    const add = '[tool:cron {"action":"add","schedule":{"at":"2027-09-01T10:00:00Z"},"message":"water the plants"}]';
    const first = (await (await h.api('/v1/chat', { json: { message: add } })).json()) as { reply: string; sessionId: string };
    const added = JSON.parse(first.reply.replace(/^tool said: /, '')) as { added: { id: string; nextRunAt: string } };
    expect(added.added.nextRunAt).toBe('2027-09-01T10:00:00.000Z');
    const other = (await (await h.api('/v1/chat', { json: { message: '[tool:cron {"action":"list"}]' } })).json()) as { reply: string };
    expect(other.reply).toBe('tool said: {"jobs":[]}');
    const removeElsewhere = (await (
      await h.api('/v1/chat', { json: { message: `[tool:cron {"action":"remove","id":"${added.added.id}"}]` } })
    ).json()) as { reply: string };
    expect(removeElsewhere.reply).toContain('error: No scheduled job');
    at('2027-09-01T10:00:02Z');
    await tick();
    expect(await runs(added.added.id)).toEqual([['2027-09-01T10:00:00.000Z', 'ok']]);
    const { messages } = (await (await h.api(`/v1/sessions/${first.sessionId}/messages`)).json()) as { messages: { content: string }[] };
    expect(messages.at(-2)?.content).toBe('water the plants');
  });

  it('refuses a schedule it cannot run with a message saying what is accepted', async () => {
    at('2027-08-01T00:00:00Z');
    const bad = await addJob({ schedule: { cron: '0 9 * * 1', tz: 'Mars/Olympus' }, message: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toContain('IANA time zone');
    const past = await addJob({ schedule: { at: '2020-01-01T00:00:00Z' }, message: 'x' });
    expect(past.status).toBe(400);
    expect(past.body.error?.message).toContain('in the past');
  });
});
