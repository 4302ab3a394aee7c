import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { WebSocket } from 'ws';
import { isNestclawError } from '@nestclaw/common';
import { toErrorResponse } from './error-body';

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() === 'ws') return this.catchWs(exception, host);
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, body } = toErrorResponse(exception);
    if (reply.sent || reply.raw.headersSent) {
      if (!reply.raw.writableEnded) reply.raw.end();
      return;
    }
    // Errors that know when a retry can succeed (pairing lockout, rate limits) say so in Retry-After.
    const retryAfter = isNestclawError(exception) ? exception.details?.retryAfterSeconds : undefined;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }

  /** A WebSocket handler threw: answer with an error frame on that socket (it stays open). */
  private catchWs(exception: unknown, host: ArgumentsHost): void {
    const client = host.switchToWs().getClient<WebSocket>();
    const { error } = toErrorResponse(exception).body;
    const data = host.switchToWs().getData<{ id?: unknown } | undefined>();
    const id = typeof data?.id === 'string' ? data.id : null;
    if (client.readyState === WebSocket.OPEN) client.send(JSON.stringify({ type: 'error', id, code: error.code, message: error.message }));
  }
}
