import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { SPAN, TRACE_ID_HEADER, tracer, withLogContext } from '@nestclaw/observability';

const UNTRACED_ROUTES = new Set(['/metrics', '/health', '/health/live', '/health/ready']);

/**
 * Opens the transport span of an HTTP request (the root of a turn's trace), returns its trace id in
 * `x-trace-id`, and runs the handler inside it with the request id in the log context. Without
 * tracing the span is a no-op and only the log context remains.
 */
@Injectable()
export class TraceInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    const reply = ctx.switchToHttp().getResponse<FastifyReply>();
    const route = req.routeOptions?.url ?? 'unknown';
    // Scrapes and probes arrive every few seconds and carry no turn: a trace each would be noise and cost.
    if (UNTRACED_ROUTES.has(route)) return next.handle();
    const span = tracer().startSpan(`${SPAN.httpRequest} ${req.method} ${route}`, {
      kind: 1, // SERVER
      attributes: { 'http.request.method': req.method, 'http.route': route },
    });
    if (span.isRecording()) void reply.header(TRACE_ID_HEADER, span.spanContext().traceId);
    const active = trace.setSpan(context.active(), span);
    return new Observable((subscriber) => {
      const sub = context.with(active, () =>
        withLogContext({ requestId: String(req.id) }, () =>
          next.handle().subscribe({
            next: (v) => subscriber.next(v),
            error: (e: unknown) => {
              span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message });
              span.end();
              subscriber.error(e);
            },
            complete: () => {
              span.setAttribute('http.response.status_code', reply.statusCode);
              span.end();
              subscriber.complete();
            },
          }),
        ),
      );
      return () => sub.unsubscribe();
    });
  }
}
