import fastifyCookie from '@fastify/cookie';
import type { IncomingMessage } from 'node:http';

/** The web session cookie (docs/security.md, "Web sessions"). */
export const SESSION_COOKIE = 'nestclaw_session';

/** The session id in the request's cookie header, if any; read only when there is no bearer token. */
export function sessionCookie(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  // The plugin's parser (registered in bootstrap, which loads it); also used for WebSocket upgrades, outside Fastify.
  const value = fastifyCookie.parse(header)[SESSION_COOKIE];
  return value ? value : undefined;
}

/** What the cookie is set with: script cannot read it, no other site's request carries it, `Secure` on https. */
export function sessionCookieOptions(maxAgeSeconds: number, secure: boolean) {
  return { httpOnly: true, sameSite: 'strict', path: '/', maxAge: maxAgeSeconds, secure } as const;
}
