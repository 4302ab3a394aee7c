import { TimeoutBudget } from './timeout-budget';

// Time is jest's fake clock (setTimeout, Date and performance.now): each test moves it by exact
// amounts, so a deadline is checked one millisecond before and at the moment it passes.
beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
afterEach(() => jest.useRealTimers());

describe('TimeoutBudget', () => {
  it('aborts its signal when the budget runs out, and says so', async () => {
    const b = new TimeoutBudget(30);
    await jest.advanceTimersByTimeAsync(29);
    expect(b.signal.aborted).toBe(false);
    expect(b.remaining()).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(b.signal.aborted).toBe(true);
    expect(b.expired).toBe(true);
    expect(b.cancelled).toBe(false);
    b.dispose();
  });

  it('tells a caller cancel apart from the budget running out', () => {
    const caller = new AbortController();
    const b = new TimeoutBudget(10_000, caller.signal);
    caller.abort();
    expect(b.signal.aborted).toBe(true);
    expect(b.cancelled).toBe(true);
    expect(b.expired).toBe(false);
    b.dispose();
  });

  it('cuts an attempt at its share without ending the budget', async () => {
    const b = new TimeoutBudget(10_000);
    const cut = b.attempt(20);
    await jest.advanceTimersByTimeAsync(19);
    expect(cut.signal.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(cut.signal.aborted).toBe(true);
    expect(cut.timedOut).toBe(true);
    expect(b.signal.aborted).toBe(false);
    cut.dispose();
    b.dispose();
  });

  it('lifts the cut once an attempt shows output, leaving it the rest of the budget', async () => {
    const b = new TimeoutBudget(10_000);
    const lifted = b.attempt(20);
    lifted.firstOutput();
    await jest.advanceTimersByTimeAsync(9_999);
    expect(lifted.signal.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(lifted.signal.aborted).toBe(true);
    expect(lifted.timedOut).toBe(false);
    lifted.dispose();
    b.dispose();
  });

  it('gives an attempt whose share is the whole remaining budget the budget signal itself', () => {
    const b = new TimeoutBudget(10_000);
    expect(b.attempt(undefined).signal).toBe(b.signal);
    expect(b.attempt(60_000).signal).toBe(b.signal);
    b.dispose();
  });

  it('wakes a sleep early when the budget ends', async () => {
    const b = new TimeoutBudget(30);
    let woke = false;
    void b.sleep(5000).then(() => (woke = true));
    await jest.advanceTimersByTimeAsync(29);
    expect(woke).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(woke).toBe(true);
    b.dispose();
  });

  it('sleeps the whole time asked when the budget allows it', async () => {
    const b = new TimeoutBudget(10_000);
    let woke = false;
    void b.sleep(80).then(() => (woke = true));
    await jest.advanceTimersByTimeAsync(79);
    expect(woke).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(woke).toBe(true);
    b.dispose();
  });
});
