import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { isNestclawError } from '@nestclaw/common';
import { Principal, PrincipalResolver, WebSession } from '@nestclaw/security';
import { bearerToken } from '../auth/bearer-token';
import { TokenRateLimit } from '../auth/token-rate-limit';
import { WebSessionCookieAuth } from '../auth/web-session-cookie.auth';

export type UpgradeVerdict =
  { ok: true; principal: Principal } | { ok: false; status: 401 | 403 | 429; code: string; message: string; retryAfterSeconds?: number };

/** The principal accepted at the upgrade, read back when the connection opens. */
const PRINCIPALS = new WeakMap<IncomingMessage, Principal>();

/** The web session, when a cookie (not a token) opened the socket: its socket closes when the session ends. */
const WEB_SESSIONS = new WeakMap<IncomingMessage, WebSession>();

export function upgradePrincipal(req: IncomingMessage): Principal | undefined {
  return PRINCIPALS.get(req);
}

export function upgradeWebSession(req: IncomingMessage): WebSession | undefined {
  return WEB_SESSIONS.get(req);
}

/**
 * Who may open `/ws`, decided on the HTTP upgrade request before any WebSocket exists: the owner,
 * or a paired token with the `chat` scope within its rate limit (an upgrade counts as a request).
 * Browsers cannot set headers on a WebSocket, so without a token the web session cookie is accepted,
 * from the gateway's own origin only (cross-site WebSocket hijacking).
 */
@Injectable()
export class WsUpgradeAuth {
  constructor(
    private readonly principals: PrincipalResolver,
    private readonly rateLimit: TokenRateLimit,
    private readonly cookies: WebSessionCookieAuth,
  ) {}

  async verify(req: IncomingMessage): Promise<UpgradeVerdict> {
    const token = bearerToken(req);
    let session: WebSession | null = null;
    if (!token && req.headers.authorization === undefined) {
      try {
        session = await this.cookies.authenticate(req, true);
      } catch (e) {
        if (!isNestclawError(e) || (e.code !== 'forbidden' && e.code !== 'unauthorized')) throw e;
        return { ok: false, status: e.code === 'forbidden' ? 403 : 401, code: e.code, message: e.message };
      }
    }
    if (!token && !session) {
      return {
        ok: false,
        status: 401,
        code: 'unauthorized',
        message:
          'Missing token: send "Authorization: Bearer <token>" (a token in the URL is refused), or sign in with the browser (`nestclaw ui`)',
      };
    }
    const principal = session ? session.principal : await this.principals.resolve(token);
    if (!principal) return { ok: false, status: 401, code: 'unauthorized', message: 'Invalid or revoked token' };
    if (!principal.scopes.includes('chat'))
      return { ok: false, status: 403, code: 'forbidden', message: 'This token lacks the "chat" scope' };
    const waitMs = await this.rateLimit.hit(principal);
    if (waitMs > 0) {
      const retryAfterSeconds = Math.ceil(waitMs / 1000);
      return {
        ok: false,
        status: 429,
        code: 'rate_limited',
        message: `Too many requests for this token; retry in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      };
    }
    PRINCIPALS.set(req, principal);
    if (session) WEB_SESSIONS.set(req, session);
    return { ok: true, principal };
  }
}
