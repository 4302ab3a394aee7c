import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  it('allows `limit` hits per window, then says how long to wait, and reports the first refusal once', () => {
    let now = 1_000;
    const rl = new RateLimiter(() => now);
    expect([rl.hit('a', 2, 1000), rl.hit('a', 2, 1000)]).toEqual([0, 0]);
    now += 250;
    expect(rl.check('a', 2, 1000)).toEqual({ retryAfterMs: 750, firstRefusal: true });
    expect(rl.check('a', 2, 1000).firstRefusal).toBe(false);
    expect(rl.hit('b', 2, 1000)).toBe(0);
    now += 750;
    expect(rl.hit('a', 2, 1000)).toBe(0);
  });
});
