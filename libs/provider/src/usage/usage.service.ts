import { Injectable } from '@nestjs/common';
import { UsageGroupBy, UsageReport, UsageRepository } from './usage.repository';

/** Spend read from the `llm_calls` ledger, for the usage API and the budgets (the repository stays inside the provider lib). */
@Injectable()
export class UsageService {
  constructor(private readonly usage: UsageRepository) {}

  report(from: Date, to: Date, groupBy: UsageGroupBy): Promise<UsageReport> {
    return this.usage.report(from, to, groupBy);
  }

  /** Spend per agent since the start of the UTC day and of the UTC month (what budgets compare against). */
  spendByAgent(now = new Date()): Promise<Map<string, { day: number; month: number }>> {
    return this.usage.spendByAgent(now);
  }
}
