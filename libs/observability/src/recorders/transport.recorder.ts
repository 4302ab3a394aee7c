import { Attributes, context, trace } from '@opentelemetry/api';
import { endWithError, tracer } from '../tracing/tracer';

/** Runs `handle` as the root span of a new trace (a WebSocket frame, a platform message): its turn is a child. */
export async function traceRoot<T>(name: string, attributes: Attributes, handle: () => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name, { root: true, attributes });
  try {
    const r = await context.with(trace.setSpan(context.active(), span), handle);
    span.end();
    return r;
  } catch (e) {
    endWithError(span, e, (e as { code?: string })?.code ?? 'internal');
    throw e;
  }
}
