import { telemetry } from '../telemetry.state';
import { label } from './label';

/** The metrics of agent spend and budgets; the rule and its state live in the provider lib's SpendBudget. */

export type BudgetPeriod = 'day' | 'month';

/** An agent's spend so far this UTC day/month, and its configured budget for the period when it has one. */
export function recordAgentSpend(agent: string, period: BudgetPeriod, spentUsd: number, budgetUsd?: number): void {
  const m = telemetry.metrics;
  if (!m) return;
  m.agentSpend.labels(label(agent), period).set(spentUsd);
  if (budgetUsd !== undefined) m.agentBudget.labels(label(agent), period).set(budgetUsd);
}

/** A turn or model call refused because the agent spent its budget. */
export function recordBudgetRefusal(agent: string, period: BudgetPeriod): void {
  telemetry.metrics?.agentBudgetRefusals.labels(label(agent), period).inc();
}
