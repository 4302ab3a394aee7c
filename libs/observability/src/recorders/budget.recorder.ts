import { telemetry } from '../telemetry.state';
import { label } from './label';

export type BudgetPeriod = 'day' | 'month';

/** Spend so far this UTC day/month, and the configured budget (absent = none). */
export function setAgentSpend(agent: string, period: BudgetPeriod, spentUsd: number, budgetUsd: number | undefined): void {
  const m = telemetry.metrics;
  if (!m) return;
  m.agentSpend.labels(label(agent), period).set(spentUsd);
  if (budgetUsd !== undefined) m.agentBudget.labels(label(agent), period).set(budgetUsd);
}

export function recordBudgetRefusal(agent: string, period: BudgetPeriod): void {
  telemetry.metrics?.agentBudgetRefusals.labels(label(agent), period).inc();
}
