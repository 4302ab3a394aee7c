import { SpendBudget } from './spend-budget';

describe('SpendBudget', () => {
  it('refuses a turn once an enforced budget is spent, and only then', () => {
    const budget = new SpendBudget();
    budget.setBudget('b', { dailyUsd: 1, enforce: true });
    budget.setSpend('b', 'day', 0.5, 1);
    expect(() => budget.assertWithin('b')).not.toThrow();
    budget.setSpend('b', 'day', 1.2, 1);
    expect(() => budget.assertWithin('b')).toThrow(expect.objectContaining({ code: 'budget_exceeded' }));
    budget.setBudget('b', { dailyUsd: 1, enforce: false });
    expect(() => budget.assertWithin('b')).not.toThrow();
  });

  it('holds the cost of model calls in flight, refusing a call once spend plus holds reach the budget', () => {
    const budget = new SpendBudget();
    budget.setBudget('h', { dailyUsd: 1, enforce: true });
    budget.setSpend('h', 'day', 0.2, 1);
    const first = budget.hold('h', 0.5);
    const second = budget.hold('h', 0.5);
    expect(() => budget.hold('h', 0.01)).toThrow(expect.objectContaining({ code: 'budget_exceeded' }));
    first.release();
    first.release();
    expect(() => budget.hold('h', 0.01).release()).not.toThrow();
    second.release();
  });

  it('counts a billed attempt against the budget at once, before the next read of the ledger', () => {
    const budget = new SpendBudget();
    budget.setBudget('a', { monthlyUsd: 2, enforce: true });
    budget.add('a', 1.5);
    expect(() => budget.assertWithin('a')).not.toThrow();
    budget.add('a', 0.5);
    expect(() => budget.assertWithin('a')).toThrow(expect.objectContaining({ code: 'budget_exceeded' }));
    // The ledger's figure replaces the running one at each refresh.
    budget.setSpend('a', 'month', 0.1, 2);
    expect(() => budget.assertWithin('a')).not.toThrow();
  });

  it('holds nothing for an agent without an enforced budget, or outside a turn', () => {
    const budget = new SpendBudget();
    budget.setSpend('free', 'day', 100, undefined);
    expect(() => budget.hold('free', 1).release()).not.toThrow();
    expect(() => budget.hold(undefined, 1).release()).not.toThrow();
  });
});
