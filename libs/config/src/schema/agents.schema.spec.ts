import { agentSchema } from './agents.schema';

describe('agents.<id>.heartbeat.interval', () => {
  it('defaults to 30 minutes and takes a duration of a minute or more', () => {
    expect(agentSchema.parse({}).heartbeat.interval).toBe(1_800_000);
    expect(agentSchema.parse({ heartbeat: { interval: '1m' } }).heartbeat.interval).toBe(60_000);
    expect(agentSchema.parse({ heartbeat: { interval: '2h' } }).heartbeat.interval).toBe(7_200_000);
  });

  it('refuses zero and anything under a minute (a zero slot has no time: the status page answered 500)', () => {
    for (const bad of [0, '0s', '30s', 59_999]) {
      const r = agentSchema.safeParse({ heartbeat: { interval: bad } });
      expect({ bad, success: r.success }).toEqual({ bad, success: false });
    }
  });
});
