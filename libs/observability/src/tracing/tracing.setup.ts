import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { samplerFromEnv, SqlNoiseSampler } from './sql-noise.sampler';

export interface TracingHandle {
  shutdown(): Promise<void>;
}

/** Tracing is on when an OTLP endpoint is set (standard OTEL_* variables) and the SDK is not disabled. */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER === 'none') return false;
  return !!(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Starts the OpenTelemetry SDK: OTLP/HTTP trace export configured by the standard variables
 * (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_TRACES_SAMPLER…) and pg instrumentation for the SQL statements. Must run before `pg` is
 * loaded (main.ts imports it first). Off, and nothing loaded into the tracer, unless an endpoint is set.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env, version = '0.0.0'): TracingHandle | undefined {
  if (!tracingEnabled(env)) return undefined;
  // The SDK's standard switch for instrumentations: `OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg` keeps SQL out of traces.
  const disabled = (env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? '').split(',').map((s) => s.trim());
  const instrumentations = disabled.includes('pg')
    ? []
    : [new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true })];
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME ?? 'nestclaw',
      'service.version': version,
    }),
    sampler: new SqlNoiseSampler(samplerFromEnv(env)),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    // Only statements inside a turn or request: pool housekeeping would be noise.
    instrumentations,
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
