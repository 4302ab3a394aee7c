import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { WorkContextManager } from './work-context.manager';

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
 * Larger and less frequent batches than the SDK's defaults (512 spans every 5 s, queue 2048): a
 * turn makes ~15 spans, so at a few dozen turns/s the defaults drop spans and send many small
 * requests. OTEL_BSP_* variables still win.
 */
const BATCH_DEFAULTS = { maxExportBatchSize: 2048, maxQueueSize: 16_384, scheduledDelayMillis: 5000 };

/**
 * Starts the OpenTelemetry SDK: OTLP/HTTP trace export configured by the standard variables
 * (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_TRACES_SAMPLER…, OTEL_BSP_*; the SDK builds the sampler from them, parentbased_always_on by
 * default). Off, and nothing loaded into the tracer, unless an endpoint is set.
 * No auto-instrumentation: nestclaw opens its own spans (transport, turn, model, tool) and one span
 * per SQL statement through libs/db's statement observer (traceStatement), which costs a fraction
 * of auto-instrumentation's patching. OTLP metrics and logs stay off unless OTEL_METRICS_EXPORTER /
 * OTEL_LOGS_EXPORTER ask for them: metrics are Prometheus's job here, logs pino's.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env, version = '0.0.0'): TracingHandle | undefined {
  if (!tracingEnabled(env)) return undefined;
  const batch = Object.fromEntries(
    Object.entries(BATCH_DEFAULTS).filter(([key]) => env[BATCH_ENV[key as keyof typeof BATCH_DEFAULTS]] === undefined),
  );
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME ?? 'nestclaw',
      'service.version': version,
    }),
    contextManager: new WorkContextManager(),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), batch)],
    instrumentations: [],
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

const BATCH_ENV = {
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
} as const;
