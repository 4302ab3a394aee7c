import { METRIC as M } from '../telemetry.names';
import { NestclawMetrics } from './nestclaw-metrics';

describe('NestclawMetrics breaker state gauge', () => {
  it('shows 1 for each model’s current state, follows changes, and drops models that are gone', async () => {
    let breakers = [
      { model: 'a', state: 'closed' },
      { model: 'b', state: 'open' },
    ];
    const m = new NestclawMetrics('1.0.0', { breakers: () => breakers });
    const read = async () =>
      Object.fromEntries(
        (await m.registry.getSingleMetric(M.modelBreakerState)!.get()).values.map((v) => [`${v.labels.model}/${v.labels.state}`, v.value]),
      );
    expect(await read()).toEqual({ 'a/closed': 1, 'a/open': 0, 'a/half_open': 0, 'b/closed': 0, 'b/open': 1, 'b/half_open': 0 });
    breakers = [
      { model: 'a', state: 'half_open' },
      { model: 'b', state: 'open' },
    ];
    expect(await read()).toMatchObject({ 'a/closed': 0, 'a/half_open': 1, 'b/open': 1 });
    breakers = [{ model: 'b', state: 'closed' }];
    expect(await read()).toEqual({ 'b/closed': 1, 'b/open': 0, 'b/half_open': 0 });
  });
});
