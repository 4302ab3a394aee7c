import type { IncomingMessage } from 'node:http';

/** Token from `Authorization: Bearer …`, or `?token=` where headers cannot be set (browser WebSocket). */
export function bearerToken(req: IncomingMessage, allowQuery = false): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  if (allowQuery && req.url) {
    const q = req.url.indexOf('?');
    if (q >= 0) return new URLSearchParams(req.url.slice(q + 1)).get('token') ?? undefined;
  }
  return undefined;
}
