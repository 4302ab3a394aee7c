import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NestclawError } from '@nestclaw/common';
import { Principal, PrincipalResolver, WebSession } from '@nestclaw/security';
import { bearerToken } from './bearer-token';
import { IS_PUBLIC } from './public.decorator';
import { ANY_SCOPE, REQUIRED_SCOPE, RouteScope } from './require-scope.decorator';
import { TokenRateLimit } from './token-rate-limit';
import { WebSessionCookieAuth } from './web-session-cookie.auth';

/** A request as the guard leaves it: `webSession` only when the cookie authenticated it. */
export type AuthenticatedRequest = FastifyRequest & { principal?: Principal; webSession?: WebSession };

/**
 * Every route needs a bearer token unless marked @Public(), and the token must hold the route's
 * scope (@RequireScope, default `chat`; `any` lets every valid token in). The owner token holds
 * every scope; paired tokens hold the scopes they were issued with and are rate limited
 * (`security.rate_limit.per_token`). The caller is attached to the request as `principal`. Without an
 * Authorization header, a browser's web session cookie is accepted instead (WebSessionCookieAuth: same
 * scopes and limits as its token, plus an Origin check on writes); the bearer path does not change.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly principals: PrincipalResolver,
    private readonly rateLimit: TokenRateLimit,
    private readonly cookies: WebSessionCookieAuth,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // WebSocket messages arrive on a socket whose upgrade was already authenticated (WsUpgradeAuth).
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<AuthenticatedRequest>();
    const token = bearerToken(req.raw);
    const principal = token ? await this.principals.resolve(token) : await this.fromCookie(req);
    if (!principal) throw new NestclawError('unauthorized', 'Invalid or revoked bearer token');
    const scope = this.reflector.getAllAndOverride<RouteScope | undefined>(REQUIRED_SCOPE, targets) ?? 'chat';
    if (scope !== ANY_SCOPE && !principal.scopes.includes(scope))
      throw new NestclawError('forbidden', `This token lacks the "${scope}" scope`);
    const waitMs = await this.rateLimit.hit(principal);
    if (waitMs > 0) {
      void http.getResponse<FastifyReply>().header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw new NestclawError('rate_limited', `Too many requests for this token; retry in ${Math.ceil(waitMs / 1000)} s`);
    }
    req.principal = principal;
    return true;
  }

  /** Only without any Authorization header: a malformed one is still refused as a missing token. */
  private async fromCookie(req: AuthenticatedRequest): Promise<Principal> {
    const session = req.raw.headers.authorization === undefined ? await this.cookies.authenticate(req.raw) : null;
    if (!session)
      throw new NestclawError('unauthorized', 'Missing bearer token: send "Authorization: Bearer <token>" (see `nestclaw token`)');
    req.webSession = session;
    return session.principal;
  }
}
