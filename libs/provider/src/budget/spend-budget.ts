import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { BudgetPeriod, recordAgentSpend, recordBudgetRefusal } from '@nestclaw/observability';

export interface AgentBudget {
  dailyUsd?: number;
  monthlyUsd?: number;
  enforce: boolean;
}

interface Spend {
  day: number;
  month: number;
}

/** A model call's estimated cost, held against its agent's budget until the call is recorded. */
export interface SpendHold {
  release(): void;
}

const NO_HOLD: SpendHold = { release: () => undefined };

/**
 * Each agent's spend and budget, and the rule: a new turn is refused once an enforced budget is
 * spent, and so is a model call once spend plus the calls in flight reach it. Spend is set from the
 * `llm_calls` ledger (the gateway's SpendService reads it every minute) and raised at once by each
 * billed attempt, so a busy minute cannot run far past the budget. Process memory only: no database
 * round trip per turn or call.
 */
@Injectable()
export class SpendBudget {
  private readonly spend = new Map<string, Spend>();
  private readonly budgets = new Map<string, AgentBudget>();
  /** Estimated cost of model calls in flight per agent, not yet in `spend` (see hold). */
  private readonly held = new Map<string, number>();

  /** The agent's configured budget (absent = none). */
  setBudget(agent: string, budget: AgentBudget | undefined): void {
    if (budget) this.budgets.set(agent, budget);
    else this.budgets.delete(agent);
  }

  /** Spend so far this UTC day/month, read from the ledger; `budgetUsd` is exported with it. */
  setSpend(agent: string, period: BudgetPeriod, spentUsd: number, budgetUsd: number | undefined): void {
    const s = this.spend.get(agent) ?? { day: 0, month: 0 };
    s[period] = spentUsd;
    this.spend.set(agent, s);
    recordAgentSpend(agent, period, spentUsd, budgetUsd);
  }

  /** A billed model attempt: counts against the running agent's budget at once, not at the next refresh. */
  add(agent: string | undefined, usd: number): void {
    if (!agent || usd <= 0) return;
    const s = this.spend.get(agent) ?? { day: 0, month: 0 };
    s.day += usd;
    s.month += usd;
    this.spend.set(agent, s);
    recordAgentSpend(agent, 'day', s.day);
    recordAgentSpend(agent, 'month', s.month);
  }

  /** Refuses a new turn once an enforced budget is spent, with what to do next. */
  assertWithin(agent: string): void {
    const over = this.over(agent, 0);
    if (over) throw refusal(agent, over);
  }

  /**
   * Before each model call of the running agent: refuses it when the budget is spent counting the
   * calls in flight, else holds its estimated cost (input tokens + max output at the model's price)
   * until `release` (the attempt is recorded, adding its real cost). Concurrent turns therefore
   * cannot all start calls against the same remaining dollars: at most the last call admitted overshoots.
   */
  hold(agent: string | undefined, estimateUsd: number): SpendHold {
    if (!agent || !this.budgets.get(agent)?.enforce) return NO_HOLD;
    const inFlight = this.held.get(agent) ?? 0;
    const over = this.over(agent, inFlight);
    if (over) throw refusal(agent, over, inFlight);
    const usd = Math.max(0, estimateUsd);
    this.held.set(agent, inFlight + usd);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.held.get(agent) ?? 0) - usd;
        if (left > 1e-12) this.held.set(agent, left);
        else this.held.delete(agent);
      },
    };
  }

  private over(agent: string, inFlightUsd: number): [BudgetPeriod, number, number] | undefined {
    const b = this.budgets.get(agent);
    if (!b?.enforce) return undefined;
    const s = this.spend.get(agent) ?? { day: 0, month: 0 };
    if (b.dailyUsd !== undefined && s.day + inFlightUsd >= b.dailyUsd) return ['day', s.day, b.dailyUsd];
    if (b.monthlyUsd !== undefined && s.month + inFlightUsd >= b.monthlyUsd) return ['month', s.month, b.monthlyUsd];
    return undefined;
  }
}

function refusal(agent: string, [period, spent, limit]: [BudgetPeriod, number, number], inFlightUsd = 0): NestclawError {
  recordBudgetRefusal(agent, period);
  return new NestclawError(
    'budget_exceeded',
    `Agent "${agent}" has spent $${spent.toFixed(4)}${inFlightUsd > 0 ? ` (and holds $${inFlightUsd.toFixed(4)} for model calls in flight)` : ''} of its $${limit} ${period === 'day' ? 'daily' : 'monthly'} budget; ` +
      `new turns resume next UTC ${period}, or raise agents.${agent}.budget in the config`,
  );
}
