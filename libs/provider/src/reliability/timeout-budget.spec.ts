import { TimeoutBudget } from './timeout-budget';

describe('TimeoutBudget', () => {
  it('aborts its signal when the budget runs out, and says so', async () => {
    const b = new TimeoutBudget(30);
    await new Promise((r) => b.signal.addEventListener('abort', r));
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

  it('cuts an attempt at its share without ending the budget, and lifts the cut once output starts', async () => {
    const b = new TimeoutBudget(10_000);
    const cut = b.attempt(20);
    await new Promise((r) => cut.signal.addEventListener('abort', r));
    expect(cut.timedOut).toBe(true);
    expect(b.signal.aborted).toBe(false);
    const lifted = b.attempt(20);
    lifted.firstOutput();
    await new Promise((r) => setTimeout(r, 40));
    expect(lifted.signal.aborted).toBe(false);
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
    const started = performance.now();
    await b.sleep(5000);
    expect(performance.now() - started).toBeLessThan(1000);
    b.dispose();
  });
});
