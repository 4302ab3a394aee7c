import { Controller, Get, Query } from '@nestjs/common';
import { UsageReport, UsageService } from '@nestclaw/provider';
import { ZodPipe } from '../http/zod-validation.pipe';
import { UsageQueryInput, usageQuerySchema, usageWindow } from './usage.query';
import { RequireScope } from '../auth/require-scope.decorator';

@RequireScope('admin')
@Controller('v1/usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  /** Tokens and cost from the call ledger: `?from=&to=&groupBy=day|month|model|session|agent|agent_day|agent_month|model_day|model_month`. */
  @Get()
  report(@Query(new ZodPipe(usageQuerySchema)) input: UsageQueryInput): Promise<UsageReport> {
    const q = usageWindow(input);
    return this.usage.report(q.from, q.to, q.groupBy);
  }
}
