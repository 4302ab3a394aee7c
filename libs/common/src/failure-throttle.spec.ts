import { FailureThrottle } from './failure-throttle';

function setup(baseDelayMs = 200) {
  let now = 0;
  const lines: string[] = [];
  const throttle = new FailureThrottle(
    'memory index worker',
    { error: (m) => lines.push(`error ${m}`), warn: (m) => lines.push(`warn ${m}`) },
    { baseDelayMs, now: () => now },
  );
  return { throttle, lines, advance: (ms: number) => (now += ms) };
}

describe('FailureThrottle', () => {
  it('logs a repeated failure once, then a summary per minute, then one line on recovery', () => {
    const { throttle, lines, advance } = setup();
    const down = new Error('database unavailable');
    // Five attempts a second for 130 s, as a 200 ms poll without a throttle would make.
    for (let t = 0; t < 650; t++, advance(200)) throttle.failed(down);
    throttle.succeeded();
    expect(lines).toEqual([
      'error memory index worker: database unavailable',
      'error memory index worker: still failing (300 times in the last 60 s): database unavailable',
      'error memory index worker: still failing (300 times in the last 60 s): database unavailable',
      'warn memory index worker: recovered after 650 failed attempts over 130.0 s',
    ]);
  });

  it('logs each different message at once, even when they alternate', () => {
    const { throttle, lines, advance } = setup();
    for (let t = 0; t < 10; t++, advance(200)) throttle.failed(new Error(t % 2 ? 'connection refused' : 'timeout'));
    expect(lines).toEqual(['error memory index worker: timeout', 'error memory index worker: connection refused']);
  });

  it('spaces the attempts out while failing, doubling up to the maximum, and tries at once after a recovery', () => {
    const { throttle, advance } = setup(200);
    expect(throttle.due()).toBe(true);
    const waits: number[] = [];
    for (let n = 0; n < 8; n++) {
      throttle.failed(new Error('down'));
      let waited = 0;
      while (!throttle.due()) waited += advance(100) && 100;
      waits.push(waited);
    }
    expect(waits).toEqual([200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]);
    throttle.succeeded();
    expect(throttle.due()).toBe(true);
    expect(throttle.failing).toBe(false);
  });

  it('tells a loop that sleeps between wake-ups how long until the next attempt is due', () => {
    const { throttle, advance } = setup(200);
    expect(throttle.retryInMs()).toBe(0);
    throttle.failed(new Error('down'));
    expect(throttle.retryInMs()).toBe(200);
    advance(150);
    expect(throttle.retryInMs()).toBe(50);
    advance(100);
    expect(throttle.retryInMs()).toBe(0);
    throttle.failed(new Error('down'));
    expect(throttle.retryInMs()).toBe(400);
    throttle.succeeded();
    expect(throttle.retryInMs()).toBe(0);
  });

  it('says nothing on success when nothing failed', () => {
    const { throttle, lines } = setup();
    throttle.succeeded();
    expect(lines).toEqual([]);
  });
});
