import { ManualClock } from '@nestclaw/testing';
import { RateLimitTracker } from './rate-limit.tracker';

describe('RateLimitTracker', () => {
  let clock: ManualClock;
  let t: RateLimitTracker;
  beforeEach(() => {
    clock = new ManualClock(1_000_000);
    t = new RateLimitTracker(clock);
  });

  it('blocks a model with rpm: 2 on the third request within a minute, until the first leaves the window', () => {
    t.reserve('m', 10);
    clock.advance(1000);
    t.reserve('m', 10);
    expect(t.blockedUntil('m', { rpm: 2 }, 10)).toBe(1_000_000 + 60_000);
    clock.advance(59_000);
    expect(t.blockedUntil('m', { rpm: 2 }, 10)).toBeUndefined();
  });

  it('blocks when the tokens of the last minute plus this request would pass tpm', () => {
    t.reserve('m', 600);
    clock.advance(10_000);
    t.reserve('m', 300);
    expect(t.blockedUntil('m', { tpm: 1000 }, 50)).toBeUndefined();
    expect(t.blockedUntil('m', { tpm: 1000 }, 200)).toBe(1_000_000 + 60_000);
  });

  it('counts the real token usage once a call settles', () => {
    const r = t.reserve('m', 10);
    t.settle(r, 950, undefined);
    expect(t.blockedUntil('m', { tpm: 1000 }, 100)).toBeDefined();
  });

  it('routes around a model whose headers say no requests are left, until their reset', () => {
    const r = t.reserve('m', 10);
    t.settle(r, 20, { remainingRequests: 1, resetRequestsMs: 5000 });
    expect(t.blockedUntil('m', undefined, 10)).toBeUndefined();
    t.reserve('m', 10); // uses the last one
    expect(t.blockedUntil('m', undefined, 10)).toBe(1_000_000 + 5000);
    clock.advance(5000);
    expect(t.blockedUntil('m', undefined, 10)).toBeUndefined();
  });

  it('routes around a model whose remaining tokens are fewer than the request needs', () => {
    t.settle(t.reserve('m', 10), 10, { remainingTokens: 100, resetTokensMs: 2000 });
    expect(t.blockedUntil('m', undefined, 50)).toBeUndefined();
    expect(t.blockedUntil('m', undefined, 500)).toBe(1_000_000 + 2000);
  });

  it('keeps away from a model that answered 429 until its Retry-After has passed', () => {
    t.throttled('m', 30_000, undefined);
    expect(t.blockedUntil('m', undefined, 1)).toBe(1_000_000 + 30_000);
    clock.advance(30_000);
    expect(t.blockedUntil('m', undefined, 1)).toBeUndefined();
  });

  it('tracks each model separately', () => {
    t.reserve('a', 1);
    expect(t.blockedUntil('b', { rpm: 1 }, 1)).toBeUndefined();
    expect(t.blockedUntil('a', { rpm: 1 }, 1)).toBeDefined();
  });
});
