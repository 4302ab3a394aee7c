import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Methods that change nothing, so a cross-site request with the cookie can do no harm. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isSafeMethod(method: string | undefined): boolean {
  return SAFE_METHODS.has(method ?? 'GET');
}

/**
 * Whether a cookie-authenticated request comes from a page of the gateway itself: its `Origin` is
 * the gateway's own (scheme + Host header; `https` too when `assumeHttps`, behind a TLS proxy) or one
 * of `server.ui.allowed_origins`. A missing Origin is refused: browsers send one on every write and
 * every WebSocket upgrade, so its absence means a client that should use a bearer token instead.
 */
export function originAllowed(req: IncomingMessage, allowed: readonly string[], assumeHttps: boolean): boolean {
  const origin = req.headers.origin?.toLowerCase();
  if (!origin) return false;
  const host = req.headers.host?.toLowerCase();
  if (host) {
    const scheme = (req.socket as Partial<TLSSocket>).encrypted ? 'https' : 'http';
    if (origin === `${scheme}://${host}` || (assumeHttps && origin === `https://${host}`)) return true;
  }
  return allowed.includes(origin);
}
