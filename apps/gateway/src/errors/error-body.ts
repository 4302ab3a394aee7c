import { HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ErrorCode, isNestclawError } from '@nestclaw/common';
import { mapDatabaseError } from '@nestclaw/db';
import { UNSUPPORTED_MEDIA_TYPE_MESSAGE } from '../http/json-bodies-only';
import { statusFor } from './error-status';

export interface ErrorBody {
  error: { code: string; message: string; errorId?: string };
}

const logger = new Logger('Errors');

/** Codes for statuses Fastify and Node produce themselves (no domain error behind them). */
const HTTP_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'invalid_request',
  413: 'payload_too_large',
  414: 'invalid_request',
  415: 'invalid_request',
  431: 'invalid_request',
  429: 'rate_limited',
};

/** Maps anything thrown to a status and the `{ error: { code, message } }` body. */
export function toErrorResponse(e: unknown): { status: number; body: ErrorBody } {
  if (isNestclawError(e)) return { status: statusFor(e.code), body: { error: { code: e.code, message: e.message } } };
  if (e instanceof HttpException) {
    const status = e.getStatus();
    const code = (Object.hasOwn(HTTP_CODES, status) ? HTTP_CODES[status] : undefined) ?? (status >= 500 ? 'internal' : 'invalid_request');
    // Nest wraps Fastify's own errors (an unsupported content type among them) in an HttpException.
    const message = status === 404 ? 'No such route' : status === 415 ? UNSUPPORTED_MEDIA_TYPE_MESSAGE : e.message;
    return { status, body: { error: { code, message } } };
  }
  // Fastify's own errors (body too large, bad JSON, wrong content type) carry a statusCode.
  const fastify = e as { statusCode?: number; code?: string; message?: string };
  if (typeof fastify.statusCode === 'number' && fastify.statusCode < 500) {
    const status = fastify.statusCode;
    const code = (Object.hasOwn(HTTP_CODES, status) ? HTTP_CODES[status] : undefined) ?? 'invalid_request';
    let message = fastify.message ?? 'bad request';
    if (fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      message = "Request body is larger than this route's limit (server.body_limit; for webhooks the largest max_body)";
    if (fastify.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e instanceof SyntaxError)
      message = `Body is not valid JSON: ${fastify.message}`;
    if (status === 415) message = UNSUPPORTED_MEDIA_TYPE_MESSAGE;
    return { status, body: { error: { code, message } } };
  }
  // A database failure that slipped past its repository's mapping is still a 503, not a 500.
  const db = mapDatabaseError(e);
  if (db !== e && isNestclawError(db)) return { status: statusFor(db.code), body: { error: { code: db.code, message: db.message } } };
  const errorId = randomUUID();
  logger.error(`unhandled error ${errorId}: ${(e as Error)?.stack ?? String(e)}`);
  return { status: 500, body: { error: { code: 'internal', message: 'Internal error; see the server log for this errorId', errorId } } };
}
