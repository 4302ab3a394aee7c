import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { WebSession, WebSessionService } from '@nestclaw/security';
import { isSafeMethod, originAllowed } from './request-origin';
import { sessionCookie } from './session-cookie';

/**
 * The second way in, after the bearer token: a browser's `nestclaw_session` cookie. Only asked when a
 * request has no Authorization header, so bearer clients never pay for it. A cookie is an ambient
 * credential, so a write (any method but GET/HEAD/OPTIONS) and every WebSocket upgrade must also come
 * from the gateway's own origin (or `server.ui.allowed_origins`): that stops cross-site request forgery
 * and cross-site WebSocket hijacking even where SameSite=Strict is not honoured.
 */
@Injectable()
export class WebSessionCookieAuth {
  constructor(
    private readonly sessions: WebSessionService,
    private readonly config: ConfigService,
  ) {}

  /** The session behind the cookie; null when there is no cookie; throws when it is dead or the origin is foreign. */
  async authenticate(req: IncomingMessage, needsOrigin = !isSafeMethod(req.method)): Promise<WebSession | null> {
    const cookie = sessionCookie(req);
    if (!cookie) return null;
    const { allowed_origins, secure_cookie } = this.config.get().server.ui;
    // Before the database: a forged cross-site request costs no statement.
    if (needsOrigin && !originAllowed(req, allowed_origins, secure_cookie))
      throw new NestclawError(
        'forbidden',
        "A request signed in with the session cookie must come from the gateway's own web page (its Origin header did not match; see server.ui.allowed_origins)",
      );
    const session = await this.sessions.authenticate(cookie);
    if (!session) throw new NestclawError('unauthorized', 'Your web session ended or expired: sign in again (run `nestclaw ui`)');
    return session;
  }
}
