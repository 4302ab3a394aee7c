import type { FastifyAdapter } from '@nestjs/platform-fastify';

/** The one route whose JSON body arrives unparsed: its signature covers the bytes as sent. */
export const WEBHOOK_ROUTE = '/api/webhook/:id';

/**
 * A webhook's signature is an HMAC of the raw body, so that route must get the bytes, and must get
 * them before anything parses them: a body that is not JSON is refused only after the signature
 * matched (WebhookIntake), so an unsigned request learns nothing from a parse error. Fastify's JSON
 * parser is replaced by one that reads a Buffer and hands it on as it is to that route and to
 * Fastify's own parser (same empty-body, invalid-JSON and prototype-poisoning rules) everywhere
 * else. Runs after routing, so `routeOptions.url` names the matched route, not a look-alike path.
 *
 * The route is public and its bodies are read before the signature can be checked, so it gets its
 * own body limit, `bodyLimit` (the largest hook's `max_body`): an unauthenticated client cannot make
 * the gateway buffer `server.body_limit` there. Fastify refuses a larger Content-Length at once,
 * without reading the body, and stops reading a chunked one at the limit.
 */
export function keepRawWebhookBodies(adapter: FastifyAdapter, bodyLimit: number): void {
  const fastify = adapter.getInstance();
  fastify.addHook('onRoute', (route) => {
    if (route.url === WEBHOOK_ROUTE) route.bodyLimit = bodyLimit;
  });
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = fastify.initialConfig;
  const parseJson = fastify.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    if (req.routeOptions.url === WEBHOOK_ROUTE) return done(null, body);
    // The default parser calls `done` itself (it never returns a promise).
    void parseJson(req, body as unknown as string, done);
  });
}
