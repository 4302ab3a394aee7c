import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { ConfigService } from '@nestclaw/config';
import { SpendBudget, UsageService } from '@nestclaw/provider';

/**
 * Reads each agent's spend for the UTC day and month from the llm_calls ledger every minute:
 * feeds it to SpendBudget (the provider lib's budget rule: checked before each turn and each model
 * call; exported as nestclaw_agent_spend_usd), and logs a warning once per period when an agent
 * crosses `budget.warn_at` of its budget.
 */
@Injectable()
export class SpendService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Budget');
  private readonly warned = new Set<string>();

  constructor(
    private readonly config: ConfigService,
    private readonly usage: UsageService,
    private readonly budget: SpendBudget,
  ) {}

  onApplicationBootstrap(): Promise<void> {
    return this.refresh();
  }

  @Interval('agent-spend', 60_000)
  async refresh(now = new Date()): Promise<void> {
    try {
      const spend = await this.usage.spendByAgent(now);
      for (const [agent, cfg] of Object.entries(this.config.get().agents)) {
        const b = cfg.budget;
        this.budget.setBudget(agent, b && { dailyUsd: b.daily_usd, monthlyUsd: b.monthly_usd, enforce: b.enforce });
        const s = spend.get(agent) ?? { day: 0, month: 0 };
        this.budget.setSpend(agent, 'day', s.day, b?.daily_usd);
        this.budget.setSpend(agent, 'month', s.month, b?.monthly_usd);
        if (b) this.warn(agent, 'day', s.day, b.daily_usd, b.warn_at, now);
        if (b) this.warn(agent, 'month', s.month, b.monthly_usd, b.warn_at, now);
      }
    } catch (e) {
      this.logger.warn(`could not read spend from the ledger: ${(e as Error).message}`);
    }
  }

  private warn(agent: string, period: 'day' | 'month', spent: number, budget: number | undefined, warnAt: number, now: Date): void {
    if (budget === undefined || spent < budget * warnAt) return;
    const key = `${agent}:${period}:${now.toISOString().slice(0, period === 'day' ? 10 : 7)}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(
      `agent "${agent}" has spent $${spent.toFixed(4)} of its $${budget} ${period === 'day' ? 'daily' : 'monthly'} budget (${Math.round((spent / budget) * 100)}%)`,
    );
  }
}
