import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { ProviderStatusService, ProvidersReport } from '@nestclaw/provider';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

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
  list(@Query(new ZodPipe(providersQuery)) q: z.output<typeof providersQuery>): Promise<ProvidersReport> {
    return this.status.report({ probe: q.probe === 'true' });
  }
}
