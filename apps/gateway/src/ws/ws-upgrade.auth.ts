import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { Principal, PrincipalResolver } from '@nestclaw/security';
import { bearerToken } from '../auth/bearer-token';
import { TokenRateLimit } from '../auth/token-rate-limit';

export type UpgradeVerdict =
  { ok: true; principal: Principal } | { ok: false; status: 401 | 403 | 429; code: string; message: string; retryAfterSeconds?: number };

/** The principal accepted at the upgrade, read back when the connection opens. */
const PRINCIPALS = new WeakMap<IncomingMessage, Principal>();

export function upgradePrincipal(req: IncomingMessage): Principal | undefined {
  return PRINCIPALS.get(req);
}

/**
 * Who may open `/ws`, decided on the HTTP upgrade request before any WebSocket exists: the owner,
 * or a paired token with the `chat` scope within its rate limit (an upgrade counts as a request).
 */
@Injectable()
export class WsUpgradeAuth {
  constructor(
    private readonly principals: PrincipalResolver,
    private readonly rateLimit: TokenRateLimit,
  ) {}

  async verify(req: IncomingMessage): Promise<UpgradeVerdict> {
    const token = bearerToken(req, true);
    if (!token) {
      return { ok: false, status: 401, code: 'unauthorized', message: 'Missing token: send "Authorization: Bearer <token>" or ?token=' };
    }
    const principal = await this.principals.resolve(token);
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
    return { ok: true, principal };
  }
}
