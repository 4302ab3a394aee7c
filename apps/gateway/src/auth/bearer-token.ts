import type { IncomingMessage } from 'node:http';

/**
 * Token from `Authorization: Bearer …`, never from the URL: a URL ends up in logs, proxies and browser
 * history (a gateway token leaked that way in CVE-2026-25253). Browsers use the session cookie instead.
 */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  return undefined;
}
