import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isNestclawError } from '@nestclaw/common';
import { toErrorResponse } from './error-body';

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
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
}
