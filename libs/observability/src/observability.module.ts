import { Module } from '@nestjs/common';
import { MetricsService } from './metrics/metrics.service';

/**
 * Owns metric and span names, the prom-client registry and the OpenTelemetry set-up. Telemetry is
 * configured before Nest starts (configureTelemetry, startTracing) so every lib's constructors can
 * already register their gauges; this module only exposes the scrape to the gateway.
 */
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class ObservabilityModule {}
