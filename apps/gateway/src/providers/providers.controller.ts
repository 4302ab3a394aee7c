import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import { ProviderStatusService, ProvidersReport } from '@nestclaw/provider';
import { RequireScope } from '../auth/require-scope.decorator';

const providersQuery = z.object({ probe: z.enum(['true', 'false']).default('true') }).strict();

@RequireScope('admin')
@Controller('v1/providers')
export class ProvidersController {
  constructor(private readonly status: ProviderStatusService) {}

  /**
   * Every configured model with its breaker state, recent error rate, rate-limit window, whether
   * its key is set (never the key) and, unless `?probe=false`, whether it answers right now.
   */
  @Get()
  list(@Query() query: unknown): Promise<ProvidersReport> {
    const r = providersQuery.safeParse(query ?? {});
    if (!r.success) {
      throw new NestclawError(
        'invalid_request',
        `Invalid query: ${r.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ')}`,
      );
    }
    return this.status.report({ probe: r.data.probe === 'true' });
  }
}
