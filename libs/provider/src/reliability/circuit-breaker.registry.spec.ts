import { ConfigService, configSchema } from '@nestclaw/config';
import { CircuitBreakerRegistry } from './circuit-breaker.registry';
import { ManualClock } from '@nestclaw/testing';

function registry(clock: ManualClock) {
  const config = configSchema.parse({ providers: { circuit_breaker: { threshold: 3, reset_interval: '60s' } } });
  return new CircuitBreakerRegistry({ get: () => config } as unknown as ConfigService, clock);
}

/** Fails n calls in a row through the breaker (each admitted call settles before the next). */
async function fail(r: CircuitBreakerRegistry, name: string, n: number) {
  for (let i = 0; i < n; i++) {
    r.for(name).acquire()?.failed();
    await new Promise((res) => setImmediate(res));
  }
}

const tick = () => new Promise((res) => setImmediate(res));

describe('CircuitBreakerRegistry (opossum, clock-driven)', () => {
  let clock: ManualClock;
  let r: CircuitBreakerRegistry;
  beforeEach(() => {
    clock = new ManualClock(1_000_000);
    r = registry(clock);
  });
  afterEach(() => r.onModuleDestroy());

  it('opens after threshold consecutive failures, not before', async () => {
    await fail(r, 'm', 2);
    expect(r.for('m').state).toBe('closed');
    await fail(r, 'm', 1);
    expect(r.for('m').state).toBe('open');
    expect(r.for('m').acquire()).toBeUndefined();
  });

  it('starts counting again after a success', async () => {
    await fail(r, 'm', 2);
    r.for('m').acquire()?.succeeded();
    await tick();
    await fail(r, 'm', 2);
    expect(r.for('m').state).toBe('closed');
  });

  it('lets exactly one probe through once the reset interval has passed on the clock', async () => {
    await fail(r, 'm', 3);
    clock.advance(59_999);
    expect(r.for('m').available).toBe(false);
    expect(r.for('m').probeAt).toBe(1_000_000 + 60_000);
    clock.advance(1);
    expect(r.for('m').state).toBe('half_open');
    const probe = r.for('m').acquire();
    expect(probe).toBeDefined();
    expect(r.for('m').acquire()).toBeUndefined();
    probe!.succeeded();
    await tick();
    expect(r.for('m').state).toBe('closed');
  });

  it('re-opens for another full interval when the probe fails', async () => {
    await fail(r, 'm', 3);
    clock.advance(60_000);
    r.for('m').acquire()!.failed();
    await tick();
    expect(r.for('m').state).toBe('open');
    clock.advance(59_000);
    expect(r.for('m').available).toBe(false);
    clock.advance(1_000);
    expect(r.for('m').available).toBe(true);
  });

  it('lets the next request probe again when a probe ends without a verdict (cancelled)', async () => {
    await fail(r, 'm', 3);
    clock.advance(60_000);
    r.for('m').acquire()!.neutral();
    await tick();
    expect(r.for('m').available).toBe(true);
  });

  it('reports the recent error rate from the rolling window, which the clock ages out', async () => {
    r.for('m').acquire()!.succeeded();
    await tick();
    await fail(r, 'm', 1);
    expect(r.for('m').stats()).toMatchObject({ calls: 2, failures: 1, errorRate: 0.5 });
    clock.advance(5 * 60_000);
    expect(r.for('m').stats()).toMatchObject({ calls: 0, errorRate: 0 });
  });

  it('keeps one breaker per model', async () => {
    await fail(r, 'a', 3);
    expect(r.for('a').state).toBe('open');
    expect(r.for('b').state).toBe('closed');
  });

  it('starts a model over with a closed breaker when its config changes', async () => {
    await fail(r, 'a', 3);
    const next = configSchema.parse({ models: { a: { model: 'x', base_url: 'http://127.0.0.1:1/v1' } } });
    r.reconfigure(next, ['models']);
    expect(r.for('a').state).toBe('closed');
  });
});
