import { withRetry } from './send-retry';

class Http429 extends Error {
  constructor(readonly retryAfter: number) {
    super('429');
  }
}
class Http400 extends Error {}

const policy = (slept: number[]) => ({
  retryAfter: (e: unknown) => (e instanceof Http429 ? e.retryAfter : undefined),
  transient: (e: unknown) => !(e instanceof Http400),
  sleep: async (ms: number) => {
    slept.push(ms);
  },
});

describe('withRetry', () => {
  it('waits exactly retry_after on a 429, then succeeds', async () => {
    const slept: number[] = [];
    let n = 0;
    const r = await withRetry(async () => {
      if (n++ === 0) throw new Http429(3);
      return 'ok';
    }, policy(slept));
    expect(r).toBe('ok');
    expect(slept).toEqual([3000]);
  });

  it('backs off exponentially on transient errors', async () => {
    const slept: number[] = [];
    let n = 0;
    await withRetry(async () => {
      if (n++ < 3) throw new Error('ECONNRESET');
      return 1;
    }, policy(slept));
    expect(slept).toEqual([500, 1000, 2000]);
  });

  it('does not retry a permanent error', async () => {
    const slept: number[] = [];
    await expect(withRetry(() => Promise.reject(new Http400('bad')), policy(slept))).rejects.toThrow('bad');
    expect(slept).toEqual([]);
  });

  it('gives up after maxAttempts', async () => {
    const slept: number[] = [];
    await expect(withRetry(() => Promise.reject(new Error('down')), { ...policy(slept), maxAttempts: 3 })).rejects.toThrow('down');
    expect(slept).toHaveLength(2);
  });
});
