import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { HeartbeatService, SchedulerClock } from '@nestclaw/agent';
import { Harness, startHarness } from '../../support/gateway-harness';

describe('heartbeat', () => {
  let h: Harness;
  let now = new Date('2027-02-01T08:00:00Z');
  const file = (agent: string) => join(h.home, 'workspaces', 'agents', agent, 'HEARTBEAT.md');
  const hb = () => h.gateway.app.get(HeartbeatService);
  const heartbeatCalls = () => h.llm.requests.filter((r) => r.body.messages.at(-1)?.content?.startsWith('[heartbeat]'));

  beforeAll(async () => {
    h = await startHarness({
      config: {
        agents: {
          default: {},
          idle: { heartbeat: { enabled: true, interval: '30m' } },
          busy: { heartbeat: { enabled: true, interval: '30m', daily_token_cap: 1, quiet_hours: { start: '22:00', end: '07:00' } } },
        },
      },
    });
    jest.spyOn(h.gateway.app.get(SchedulerClock), 'now').mockImplementation(() => now);
    for (const a of ['idle', 'busy']) mkdirSync(join(h.home, 'workspaces', 'agents', a), { recursive: true });
  });
  afterAll(() => h.stop());

  it('makes no model call over many intervals when HEARTBEAT.md asks for nothing', async () => {
    writeFileSync(file('idle'), '# Heartbeat\n<!-- add standing tasks here -->\n- [x] renewed the domain\n- [ ]\n');
    for (let i = 0; i < 48; i++) {
      now = new Date(Date.parse('2027-02-01T08:00:00Z') + i * 30 * 60_000);
      await hb().tick();
    }
    expect(heartbeatCalls()).toHaveLength(0);
    expect(hb().stats.idle).toBeGreaterThanOrEqual(48);
  });

  it('runs a minimal-prompt turn for an open task, once per interval, and stops at the daily cap with a log line', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    writeFileSync(file('busy'), '# Heartbeat\n- [ ] check whether the nightly build is green\n');
    writeFileSync(file('idle'), '# Heartbeat\n');
    now = new Date('2027-02-03T09:00:00Z');
    await hb().tick();
    expect(heartbeatCalls()).toHaveLength(1);
    const sent = heartbeatCalls()[0].body.messages;
    expect(sent.at(-1)!.content).toContain('check whether the nightly build is green');
    expect(sent[0].content).not.toContain('## SOUL.md'); // minimal prompt
    now = new Date('2027-02-03T09:10:00Z');
    await hb().tick(); // within the interval
    expect(heartbeatCalls()).toHaveLength(1);
    now = new Date('2027-02-03T09:40:00Z');
    await hb().tick(); // due, but the 1-token cap is spent
    now = new Date('2027-02-03T10:20:00Z');
    await hb().tick();
    expect(heartbeatCalls()).toHaveLength(1);
    expect(hb().stats.capped).toBe(2);
    expect(warn.mock.calls.filter(([m]) => String(m).includes('heartbeat daily token cap (1) reached'))).toHaveLength(1);
    expect(await (await h.api('/metrics')).text()).toMatch(/nestclaw_heartbeat_cap_reached_total\{agent="busy"\} 2\b/);
    now = new Date('2027-02-03T23:30:00Z'); // quiet hours, and the next day's cap is fresh only after midnight
    await hb().tick();
    now = new Date('2027-02-04T07:30:00Z'); // a new day, outside quiet hours
    await hb().tick();
    expect(heartbeatCalls()).toHaveLength(2);
  });

  it("keeps the day's spend and the beats already made across a restart (they are read from Postgres)", async () => {
    const before = heartbeatCalls().length; // the 07:30 beat of 2027-02-04 spent the day's cap
    await h.restart();
    jest.spyOn(h.gateway.app.get(SchedulerClock), 'now').mockImplementation(() => now);
    now = new Date('2027-02-04T08:10:00Z');
    await hb().tick();
    expect(heartbeatCalls()).toHaveLength(before);
    expect(hb().stats.capped).toBe(1);
  });

  it('runs a task added to HEARTBEAT.md during a slot that found nothing to do, in that slot (as GET /v1/heartbeats says)', async () => {
    writeFileSync(file('busy'), '# Heartbeat\n');
    writeFileSync(file('idle'), '# Heartbeat\n');
    now = new Date('2027-02-05T12:00:00Z');
    await hb().tick();
    const before = heartbeatCalls().length;
    const idle = hb().stats.idle;
    now = new Date('2027-02-05T12:05:00Z');
    await hb().tick(); // still nothing asked: looked at again, not counted again
    expect(hb().stats.idle).toBe(idle);
    writeFileSync(file('idle'), '# Heartbeat\n- [ ] 提醒我十二点半开会\n');
    const status = (await (await h.api('/v1/heartbeats')).json()) as { heartbeats: { agentId: string; nextDueAt: string | null }[] };
    expect(status.heartbeats.find((b) => b.agentId === 'idle')?.nextDueAt).toBe(now.toISOString());
    now = new Date('2027-02-05T12:06:00Z');
    await hb().tick();
    expect(heartbeatCalls()).toHaveLength(before + 1);
    expect(heartbeatCalls().at(-1)!.body.messages.at(-1)!.content).toContain('提醒我十二点半开会');
    now = new Date('2027-02-05T12:07:00Z');
    await hb().tick(); // once per slot
    expect(heartbeatCalls()).toHaveLength(before + 1);
  });
});
