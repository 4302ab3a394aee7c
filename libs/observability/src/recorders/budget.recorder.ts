import { NestclawError } from '@nestclaw/common';
import { telemetry } from '../telemetry.state';
import { label } from './label';

export type BudgetPeriod = 'day' | 'month';

export interface AgentBudget {
  dailyUsd?: number;
  monthlyUsd?: number;
  enforce: boolean;
}

interface Spend {
  day: number;
  month: number;
}

/** Spend per agent: set from the llm_calls ledger every minute, raised live by each billed attempt. */
const spend = new Map<string, Spend>();
const budgets = new Map<string, AgentBudget>();

/** Spend so far this UTC day/month (from the ledger), and the configured budget (absent = none). */
export function setAgentSpend(agent: string, period: BudgetPeriod, spentUsd: number, budgetUsd: number | undefined): void {
  const s = spend.get(agent) ?? { day: 0, month: 0 };
  s[period] = spentUsd;
  spend.set(agent, s);
  const m = telemetry.metrics;
  if (!m) return;
  m.agentSpend.labels(label(agent), period).set(spentUsd);
  if (budgetUsd !== undefined) m.agentBudget.labels(label(agent), period).set(budgetUsd);
}

export function setAgentBudget(agent: string, budget: AgentBudget | undefined): void {
  if (budget) budgets.set(agent, budget);
  else budgets.delete(agent);
}

/** A billed model attempt: counts against the running agent's budget at once, not at the next refresh. */
export function addAgentSpend(agent: string | undefined, usd: number): void {
  if (!agent || usd <= 0) return;
  const s = spend.get(agent) ?? { day: 0, month: 0 };
  s.day += usd;
  s.month += usd;
  spend.set(agent, s);
  telemetry.metrics?.agentSpend.labels(label(agent), 'day').set(s.day);
  telemetry.metrics?.agentSpend.labels(label(agent), 'month').set(s.month);
}

/** Refuses a new turn once an enforced budget is spent, with what to do next. */
export function assertWithinBudget(agent: string): void {
  const b = budgets.get(agent);
  if (!b?.enforce) return;
  const s = spend.get(agent) ?? { day: 0, month: 0 };
  const over: [BudgetPeriod, number, number] | undefined =
    b.dailyUsd !== undefined && s.day >= b.dailyUsd
      ? ['day', s.day, b.dailyUsd]
      : b.monthlyUsd !== undefined && s.month >= b.monthlyUsd
        ? ['month', s.month, b.monthlyUsd]
        : undefined;
  if (!over) return;
  const [period, spent, limit] = over;
  telemetry.metrics?.agentBudgetRefusals.labels(label(agent), period).inc();
  throw new NestclawError(
    'budget_exceeded',
    `Agent "${agent}" has spent $${spent.toFixed(4)} of its $${limit} ${period === 'day' ? 'daily' : 'monthly'} budget; ` +
      `new turns resume next UTC ${period}, or raise agents.${agent}.budget in the config`,
  );
}
