import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
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
 * Batches leave 200 ms after their first span ends, not the SDK's 5 s (at a few hundred turns/s the
 * 2048-span batch then filled in ~1 s). A span waiting in the queue outlives the gateway's young
 * generation (scavenged every ~30 ms under load) and is promoted: ~7-10 KB of old generation a turn
 * at 5 s, ~2-4 KB at 20 ms, paid again in major collections; but 20 ms sent seven times as many
 * requests. Measured throughput ratio to "off" (npm run bench): 5 s 0.924, 20 ms 0.948, 200 ms
 * 0.957-0.984 (ADR 0013). A batch carries at most 2048 spans; the queue holds 16384 before it
 * drops, against the SDK's 2048, which a burst of turns could fill. OTEL_BSP_* variables still win.
 */
const BATCH_DEFAULTS = { maxExportBatchSize: 2048, maxQueueSize: 16_384, scheduledDelayMillis: 200 };

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
  // Loaded only when tracing is on: the SDK and its exporter are ~700 files and ~30 MB of a gateway's idle RSS.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof Resources;
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkNode;
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;
  /* eslint-enable @typescript-eslint/no-require-imports */
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
