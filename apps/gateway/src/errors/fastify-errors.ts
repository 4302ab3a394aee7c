import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { toErrorResponse } from './error-body';

/**
 * Path parameters longer than this are answered 414 before routing. Session ids may be 200
 * characters, so Fastify's default of 100 would refuse valid ones.
 */
export const MAX_PARAM_LENGTH = 500;

/**
 * Fastify options that route the errors Fastify and Node raise before Nest sees a request (bad
 * percent-encoding, an over-long parameter, oversized headers, malformed HTTP) through the same
 * `{ "error": { code, message } }` shape as everything else.
 */
export function fastifyErrorOptions(): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler' | 'routerOptions'> {
  return {
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (error: Error & { code?: string }, _req: FastifyRequest, reply: FastifyReply) => {
      const friendly =
        error.code === 'FST_ERR_BAD_URL'
          ? Object.assign(new Error('The path is not valid percent-encoded UTF-8'), { statusCode: 400 })
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? Object.assign(new Error(`A path parameter is longer than ${MAX_PARAM_LENGTH} characters`), { statusCode: 414 })
            : error;
      const { status, body } = toErrorResponse(friendly);
      void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const [status, message] =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request headers (or the request line) are too large']
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'The request took too long to arrive']
            : [400, `Malformed HTTP request (${error.code ?? 'parse error'}); check the request line and headers`];
      const body = JSON.stringify(toErrorResponse(Object.assign(new Error(message), { statusCode: status })).body);
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy();
    },
  };
}
