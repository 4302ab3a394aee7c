import { Context, context, Span, SpanStatusCode, trace, Tracer } from '@opentelemetry/api';

/**
 * nestclaw's tracer; a no-op until the SDK is started (tracing.setup.ts), so spans cost nothing when
 * off. Kept once: the API's proxy tracer delegates to the SDK's when it registers, and looking the
 * tracer up per span would rebuild its cache key every time.
 */
let cached: Tracer | undefined;
export function tracer(): Tracer {
  return (cached ??= trace.getTracer('nestclaw'));
}

/** The trace id of the active span, or undefined when tracing is off. */
export function activeTraceId(ctx: Context = context.active()): string | undefined {
  const span = trace.getSpan(ctx);
  if (!span) return undefined;
  const { traceId, traceFlags } = span.spanContext();
  return span.isRecording() || traceFlags ? traceId : undefined;
}

export function endWithError(span: Span, e: unknown, errorType: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message ?? String(e) });
  span.end();
}
