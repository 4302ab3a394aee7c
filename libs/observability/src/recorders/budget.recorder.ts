import { NestclawError } from '@nestclaw/common';
import { telemetry } from '../telemetry.state';
import { label } from './label';
import { currentAgent } from './turn.recorder';

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
/** Estimated cost of model calls in flight per agent, not yet in `spend` (see holdAgentSpend). */
const held = new Map<string, number>();

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
  const over = overBudget(agent, 0);
  if (over) throw refusal(agent, over);
}

/** A model call's estimated cost, held against its agent's budget until the call is recorded. */
export interface SpendHold {
  release(): void;
}

const NO_HOLD: SpendHold = { release: () => undefined };

/**
 * Before each model call of the running agent: refuses it when the budget is spent counting the
 * calls in flight, else holds its estimated cost (input tokens + max output at the model's price)
 * until `release` (the attempt is recorded, adding its real cost). Concurrent turns therefore
 * cannot all start calls against the same remaining dollars: at most the last call admitted
 * overshoots. Process memory only: no database round trip per call.
 */
export function holdAgentSpend(estimateUsd: number): SpendHold {
  const agent = currentAgent();
  if (!agent || !budgets.get(agent)?.enforce) return NO_HOLD;
  const inFlight = held.get(agent) ?? 0;
  const over = overBudget(agent, inFlight);
  if (over) throw refusal(agent, over, inFlight);
  const usd = Math.max(0, estimateUsd);
  held.set(agent, (held.get(agent) ?? 0) + usd);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      const left = (held.get(agent) ?? 0) - usd;
      if (left > 1e-12) held.set(agent, left);
      else held.delete(agent);
    },
  };
}

function overBudget(agent: string, inFlightUsd: number): [BudgetPeriod, number, number] | undefined {
  const b = budgets.get(agent);
  if (!b?.enforce) return undefined;
  const s = spend.get(agent) ?? { day: 0, month: 0 };
  if (b.dailyUsd !== undefined && s.day + inFlightUsd >= b.dailyUsd) return ['day', s.day, b.dailyUsd];
  if (b.monthlyUsd !== undefined && s.month + inFlightUsd >= b.monthlyUsd) return ['month', s.month, b.monthlyUsd];
  return undefined;
}

function refusal(agent: string, [period, spent, limit]: [BudgetPeriod, number, number], inFlightUsd = 0): NestclawError {
  telemetry.metrics?.agentBudgetRefusals.labels(label(agent), period).inc();
  return new NestclawError(
    'budget_exceeded',
    `Agent "${agent}" has spent $${spent.toFixed(4)}${inFlightUsd > 0 ? ` (and holds $${inFlightUsd.toFixed(4)} for model calls in flight)` : ''} of its $${limit} ${period === 'day' ? 'daily' : 'monthly'} budget; ` +
      `new turns resume next UTC ${period}, or raise agents.${agent}.budget in the config`,
  );
}
