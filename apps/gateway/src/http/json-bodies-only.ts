import type { FastifyAdapter } from '@nestjs/platform-fastify';

/** What a 415 says: the one fix, whatever content type was sent (or none). */
export const UNSUPPORTED_MEDIA_TYPE_MESSAGE = 'Unsupported Content-Type: send the body as JSON with "Content-Type: application/json"';

/**
 * Request bodies are JSON only. Fastify brings a `text/plain` parser (fetch's default for a string
 * body) and Nest adds `application/x-www-form-urlencoded` (curl's `-d` default); either let a
 * mislabelled JSON body reach validation as a string or an empty form and fail there with a
 * misleading 400 ("message: … received undefined"). With only the JSON parser left, Fastify answers
 * every other or missing content type on a request with a body 415 before routing, auth or
 * validation, on every route at once. Pair with `bodyParser: false` in `NestFactory.create`, which
 * keeps Nest from adding its parsers back.
 */
export function acceptJsonBodiesOnly(adapter: FastifyAdapter): void {
  adapter.getInstance().removeContentTypeParser('text/plain');
}
