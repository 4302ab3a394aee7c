import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeartbeatService, JobScheduler, SchedulerClock } from '@nestclaw/agent';
import { telegramHtmlToText } from '@nestclaw/channel';
import type { RunningGateway } from '../../../apps/gateway/src/bootstrap';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';

const alice: FakeUser = { id: 3001, first_name: 'Alice', username: 'alice' };
const bob: FakeUser = { id: 3002, first_name: 'Bob', username: 'bob' };

/** Job and heartbeat answers reach the chat they belong to (fake Bot API, real Postgres, the scheduler's clock under test control). */
describe('scheduled answers in chats', () => {
  let h: Harness;
  let tg: FakeTelegramServer;
  let now = new Date('2027-06-01T00:00:00Z');
  const pinClock = (gw: RunningGateway) => jest.spyOn(gw.app.get(SchedulerClock), 'now').mockImplementation(() => now);
  const tick = async () => {
    const s = h.gateway.app.get(JobScheduler);
    await s.tick();
    await s.idle();
  };
  const texts = (chatId: number) => tg.sentTo(chatId).map((m) => telegramHtmlToText(m.current));
  /** Sends a DM and waits for the bot's next message to that person, once `done` says it is final. */
  const ask = async (who: FakeUser, text: string, done: (t: string) => boolean = (t) => t !== '…') => {
    const before = tg.sentTo(who.id).length;
    tg.dm(who, text);
    return tg.waitFor(() => texts(who.id).slice(before).find(done), 15_000, `answer to ${text}`);
  };
  /** Messages in any chat that show `text` (a Telegram answer is a placeholder edited into the text). */
  const shown = (text: string) => tg.sent.filter((m) => telegramHtmlToText(m.current).includes(text));

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      config: {
        scheduler: { tick: '1h' },
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [String(alice.id), String(bob.id)], poll_timeout: 1 },
        },
        agents: {
          default: {
            tools: ['current_time', 'cron'],
            heartbeat: { enabled: true, interval: '30m', deliver_to: { channel: 'telegram', chat_id: String(alice.id) } },
          },
        },
      },
    });
    pinClock(h.gateway);
  });
  afterAll(async () => {
    await h?.stop();
    await tg?.stop();
  });

  it('delivers a reminder made in a Telegram chat to that chat only, once, even when the delivery is retried', async () => {
    now = new Date('2027-06-01T00:00:00Z');
    const made = await ask(
      alice,
      '[tool:cron {"action":"add","schedule":{"at":"2027-06-01T01:00:00Z"},"message":"stretch your legs"}]',
      (t) => t.startsWith('tool said: {') && t.endsWith('}'),
    );
    const jobId = (JSON.parse(made.replace(/^tool said: /, '')) as { added: { id: string } }).added.id;
    const [job] = await h.query<{ deliver_to: unknown; owner_id: string }>(
      `SELECT deliver_to, owner_id FROM scheduled_jobs WHERE id = $1`,
      [jobId],
    );
    expect(job).toEqual({ deliver_to: { channel: 'telegram', chatId: String(alice.id) }, owner_id: `telegram:${alice.id}` });
    const bobBefore = tg.sentTo(bob.id).length;
    now = new Date('2027-06-01T01:00:01Z');
    await tick();
    await tg.waitFor(() => texts(alice.id).includes('echo: stretch your legs'), 10_000, 'reminder in alice’s chat');
    const everywhere = () => shown('echo: stretch your legs').map((m) => m.chat_id);
    expect(everywhere()).toEqual([String(alice.id)]);
    expect(tg.sentTo(bob.id).length).toBe(bobBefore);
    const [run] = await h.query<{ id: string; delivered: boolean }>(
      `SELECT id::text, delivered_at IS NOT NULL AS delivered FROM job_runs WHERE job_id = $1`,
      [jobId],
    );
    expect(run.delivered).toBe(true);
    // A crash between the send and its record: the run looks undelivered and its lease has run out.
    await h.query(`UPDATE job_runs SET delivered_at = NULL, delivery_due_at = $2 WHERE id = $1`, [run.id, now]);
    now = new Date('2027-06-01T01:05:00Z');
    await tick();
    await tick();
    const outbound = await h.query<{ chat_id: string; status: string }>(
      `SELECT chat_id, status FROM outbound_messages WHERE job_run_id = $1`,
      [run.id],
    );
    expect(outbound).toEqual([{ chat_id: String(alice.id), status: 'sent' }]);
    expect(everywhere()).toEqual([String(alice.id)]);
    expect((await h.query(`SELECT 1 FROM job_runs WHERE id = $1 AND delivered_at IS NOT NULL`, [run.id])).length).toBe(1);
  });

  it('lets only the person who made a job list or remove it, through /cron and through the API', async () => {
    now = new Date('2027-07-01T00:00:00Z');
    const added = await ask(alice, '/cron add at 2027-07-02T08:00:00Z 给猫喂食');
    const id = /job ([0-9a-f-]{36})/.exec(added)![1];
    expect(await ask(alice, '/cron')).toContain(id);
    expect(await ask(bob, '/cron')).not.toContain(id);
    expect(await ask(bob, `/cron rm ${id}`)).toBe(`No scheduled job "${id}"`);
    // Another person with an API token neither sees nor deletes it; the owner sees it.
    const { code } = (await (await h.api('/v1/pair/codes', { json: {} })).json()) as { code: string };
    const paired = (await (
      await fetch(`${h.gateway.url}/v1/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, name: 'mallory' }),
      })
    ).json()) as { token: string };
    const as = (token: string, init: RequestInit = {}) =>
      fetch(`${h.gateway.url}/v1/cron${init.method === 'DELETE' ? `/${id}` : ''}`, {
        ...init,
        headers: { authorization: `Bearer ${token}` },
      });
    const listed = (await (await as(paired.token)).json()) as { jobs: { id: string }[] };
    expect(listed.jobs.map((j) => j.id)).not.toContain(id);
    expect((await as(paired.token, { method: 'DELETE' })).status).toBe(404);
    const owner = (await (await as(TEST_TOKEN)).json()) as { jobs: { id: string; message: string }[] };
    expect(owner.jobs.find((j) => j.id === id)?.message).toBe('给猫喂食');
    expect(await ask(alice, `/cron rm ${id}`)).toBe(`Removed job ${id}.`);
    expect(await h.query(`SELECT 1 FROM scheduled_jobs WHERE id = $1`, [id])).toEqual([]);
  });

  it("sends a heartbeat reply with news to the owner's default chat and keeps one that says nothing new", async () => {
    const dir = join(h.home, 'workspaces', 'agents', 'default');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'HEARTBEAT.md'), '- [ ] tell me when the nightly build turns red\n');
    const hb = h.gateway.app.get(HeartbeatService);
    const before = texts(alice.id).length;
    h.llm.enqueue({ kind: 'text', text: 'HEARTBEAT_OK' });
    now = new Date('2027-08-01T09:00:00Z');
    await hb.tick();
    expect(hb.stats.silent).toBe(1);
    h.llm.enqueue({ kind: 'text', text: 'The nightly build is red since 03:12.' });
    now = new Date('2027-08-01T09:30:00Z');
    await hb.tick();
    await tg.waitFor(() => texts(alice.id).includes('The nightly build is red since 03:12.'), 10_000, 'heartbeat news');
    expect(texts(alice.id).slice(before)).toEqual(['The nightly build is red since 03:12.']);
    expect(shown('HEARTBEAT_OK')).toEqual([]);
  });
});
