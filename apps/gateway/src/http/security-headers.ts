import type { FastifyAdapter } from '@nestjs/platform-fastify';

/**
 * Headers every response carries, so a page the gateway serves (the control UI) can run only its own
 * scripts and styles, cannot be framed, and leaks no URL in a Referer. Set on the raw response in
 * `onRequest`, so they also reach what bypasses Fastify's reply (SSE streams written after hijack(),
 * errors from before routing); a route that sets one of them itself overrides it. A constant list:
 * four header writes per request, nothing else on the chat path.
 */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  [
    'content-security-policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  ],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
];

export function sendSecurityHeaders(adapter: FastifyAdapter): void {
  adapter.getInstance().addHook('onRequest', (_req, reply, done) => {
    for (const [name, value] of SECURITY_HEADERS) reply.raw.setHeader(name, value);
    done();
  });
}
