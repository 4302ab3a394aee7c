import { Injectable } from '@nestjs/common';
import { telemetry } from '../telemetry.state';

export interface MetricsScrape {
  contentType: string;
  body: string;
}

/** The Prometheus text exposition of every nestclaw metric; empty when metrics are off. */
@Injectable()
export class MetricsService {
  get enabled(): boolean {
    return !!telemetry.metrics;
  }

  async scrape(): Promise<MetricsScrape | undefined> {
    const m = telemetry.metrics;
    if (!m) return undefined;
    return { contentType: m.registry.contentType, body: await m.registry.metrics() };
  }
}
