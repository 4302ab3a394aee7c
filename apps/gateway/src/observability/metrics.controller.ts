import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { NestclawError } from '@nestclaw/common';
import { MetricsService } from '@nestclaw/observability';
import { RequireScope } from '../auth/require-scope.decorator';

/**
 * Prometheus scrape endpoint. Needs a token with the `metrics` scope (`nestclaw pair --scope metrics`)
 * or the owner token: Prometheus sends it with `authorization: { credentials_file: … }`.
 */
@Controller()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @RequireScope('metrics')
  @Get('metrics')
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const scrape = await this.metrics.scrape();
    if (!scrape) throw new NestclawError('not_found', 'Metrics are disabled (observability.metrics.enabled: false)');
    await reply.header('content-type', scrape.contentType).header('cache-control', 'no-store').send(scrape.body);
  }
}
