import { backoffMs, decideRetry, RetrySettings } from './retry-policy';

const settings: RetrySettings = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 8000 };

describe('retry policy', () => {
  it('backs off exponentially with jitter between half and all of the step, capped at max_delay', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, settings, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((n) => backoffMs(n, settings, () => 1))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffMs(10, settings, () => 1)).toBe(8000);
  });

  it('retries the same model while attempts remain and the backoff fits in the time left', () => {
    expect(decideRetry({ failedAttempts: 1, timeLeftMs: 10_000, settings, random: () => 1 })).toEqual({ kind: 'retry', delayMs: 500 });
  });

  it('moves to the next model once max_attempts have failed', () => {
    expect(decideRetry({ failedAttempts: 3, timeLeftMs: 60_000, settings })).toMatchObject({ kind: 'next_model' });
  });

  it('does not sleep when the backoff would not leave time for another attempt', () => {
    expect(decideRetry({ failedAttempts: 2, timeLeftMs: 900, settings, random: () => 1 })).toMatchObject({ kind: 'next_model' });
  });

  it('honours a Retry-After longer than the backoff when it fits', () => {
    expect(decideRetry({ failedAttempts: 1, retryAfterMs: 2000, timeLeftMs: 10_000, settings, random: () => 0 })).toEqual({
      kind: 'retry',
      delayMs: 2000,
    });
  });

  it('skips to the next model at once when Retry-After is longer than the time left (30 s asked, 5 s left)', () => {
    expect(decideRetry({ failedAttempts: 1, retryAfterMs: 30_000, timeLeftMs: 5000, settings })).toMatchObject({ kind: 'next_model' });
  });

  it('does not wait on one model longer than max_delay even when the budget would allow it', () => {
    expect(decideRetry({ failedAttempts: 1, retryAfterMs: 20_000, timeLeftMs: 120_000, settings })).toMatchObject({ kind: 'next_model' });
  });
});
