import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeartbeatService, SchedulerClock } from '@nestclaw/agent';
import { PairedTokenService } from '@nestclaw/security';
import { Harness, startHarness } from '../../support/gateway-harness';

interface Heartbeat {
  agentId: string;
  enabled: boolean;
  intervalMs: number;
  quietHours: { start: string; end: string } | null;
  tokensToday: number;
  deliverTo: { channel: string; chatId: string } | null;
  hasTasks: boolean;
  lastRun: { dueAt: string; status: string } | null;
  nextDueAt: string | null;
  sessionId: string | null;
}

/** GET /v1/heartbeats against the real gateway, its clock moved by the test (as heartbeat.e2e-spec does). */
describe('GET /v1/heartbeats', () => {
  let h: Harness;
  let now = new Date('2027-03-01T09:00:00Z');
  const list = async () => {
    const res = await h.api('/v1/heartbeats');
    expect(res.status).toBe(200);
    const { heartbeats } = (await res.json()) as { heartbeats: Heartbeat[] };
    return Object.fromEntries(heartbeats.map((b) => [b.agentId, b]));
  };

  beforeAll(async () => {
    h = await startHarness({
      config: {
        agents: {
          default: {},
          // A 1-token cap: the first beat spends the day.
          busy: { heartbeat: { enabled: true, interval: '30m', daily_token_cap: 1, quiet_hours: { start: '22:00', end: '07:00' } } },
          mailer: { heartbeat: { enabled: true, interval: '2h', deliver_to: { channel: 'telegram', chat_id: '42' } } },
        },
      },
    });
    jest.spyOn(h.gateway.app.get(SchedulerClock), 'now').mockImplementation(() => now);
    mkdirSync(join(h.home, 'workspaces', 'agents', 'busy'), { recursive: true });
    writeFileSync(join(h.home, 'workspaces', 'agents', 'busy', 'HEARTBEAT.md'), '# Heartbeat\n- [ ] check the nightly build\n');
  });
  afterAll(() => h.stop());

  it("lists every agent's heartbeat settings, with a disabled one not due and an idle one due at its next slot", async () => {
    const all = await list();
    expect(Object.keys(all).sort()).toEqual(['busy', 'default', 'mailer']);
    expect(all.default).toMatchObject({ enabled: false, nextDueAt: null, lastRun: null, sessionId: null });
    expect(all.mailer).toMatchObject({
      enabled: true,
      intervalMs: 7_200_000,
      quietHours: null,
      deliverTo: { channel: 'telegram', chatId: '42' },
      hasTasks: false,
      nextDueAt: '2027-03-01T10:00:00.000Z',
    });
    expect(all.busy).toMatchObject({
      intervalMs: 1_800_000,
      quietHours: { start: '22:00', end: '07:00' },
      deliverTo: null,
      hasTasks: true,
      tokensToday: 0,
      lastRun: null,
      nextDueAt: '2027-03-01T09:00:00.000Z',
    });
  });

  it("shows the slot that beat, today's tokens and the session, and the next beat after the spent cap and the quiet hours", async () => {
    await h.gateway.app.get(HeartbeatService).tick();
    const { busy } = await list();
    expect(busy.lastRun).toMatchObject({ dueAt: '2027-03-01T09:00:00.000Z', status: 'ok' });
    expect(busy.tokensToday).toBeGreaterThanOrEqual(1);
    expect(busy.sessionId).toBe('heartbeat:busy');
    // The cap is spent until midnight UTC, when quiet hours (22:00–07:00 UTC) hold it until 07:00.
    expect(busy.nextDueAt).toBe('2027-03-02T07:00:00.000Z');
    const transcript = await h.api(`/v1/sessions/${encodeURIComponent(busy.sessionId!)}/messages`);
    expect(transcript.status).toBe(200);
  });

  it('follows the clock: the next day the spend starts again and the slot is due once quiet hours end', async () => {
    now = new Date('2027-03-02T06:10:00Z');
    const { busy } = await list();
    expect(busy.tokensToday).toBe(0);
    expect(busy.nextDueAt).toBe('2027-03-02T07:00:00.000Z');
  });

  it('answers 401 without a token and 403 to a token without the admin scope', async () => {
    const anonymous = await fetch(`${h.gateway.url}/v1/heartbeats`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const { token } = await h.gateway.app.get(PairedTokenService).issue('heartbeat reader', ['chat', 'approve', 'metrics']);
    const chatOnly = await fetch(`${h.gateway.url}/v1/heartbeats`, { headers: { authorization: `Bearer ${token}` } });
    expect(chatOnly.status).toBe(403);
    expect(((await chatOnly.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });
});
