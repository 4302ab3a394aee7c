import { withDeadline } from './plugin-store.deadline';

describe("a plugin store's call bounded in time", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('answers with the result when the store answers in time', async () => {
    await expect(withDeadline(() => Promise.resolve(['1']), 100, 'search')).resolves.toEqual(['1']);
  });

  it('fails naming the call and aborts the store once the time is up', async () => {
    const abort = new AbortController();
    const call = withDeadline(() => new Promise<never>(() => undefined), 100, 'search', abort);
    jest.advanceTimersByTime(100);
    await expect(call).rejects.toThrow("the memory store's search took longer than 100 ms");
    expect(abort.signal.aborted).toBe(true);
  });

  it('fails like a rejection when the store throws before returning a promise', async () => {
    const call = withDeadline(
      () => {
        throw new Error('sync boom');
      },
      100,
      'search',
    );
    await expect(call).rejects.toThrow('sync boom');
  });

  it("passes on the store's own failure", async () => {
    await expect(withDeadline(() => Promise.reject(new Error('down')), 100, 'upsert')).rejects.toThrow('down');
  });
});
