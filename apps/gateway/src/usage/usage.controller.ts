import { Controller, Get, Query } from '@nestjs/common';
import { UsageReport, UsageRepository } from '@nestclaw/provider';
import { parseUsageQuery } from './usage.query';
import { RequireScope } from '../auth/require-scope.decorator';

@RequireScope('admin')
@Controller('v1/usage')
export class UsageController {
  constructor(private readonly usage: UsageRepository) {}

  /** Tokens and cost from the call ledger: `?from=&to=&groupBy=day|month|model|session|agent|agent_day|agent_month|model_day|model_month`. */
  @Get()
  report(@Query() query: unknown): Promise<UsageReport> {
    const q = parseUsageQuery(query);
    return this.usage.report(q.from, q.to, q.groupBy);
  }
}
