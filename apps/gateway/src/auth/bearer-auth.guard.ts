import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { NestclawError } from '@nestclaw/common';
import { ApiTokenService, OWNER, Principal, Scope } from '@nestclaw/security';
import { bearerToken } from './bearer-token';
import { IS_PUBLIC } from './public.decorator';
import { REQUIRED_SCOPE } from './require-scope.decorator';

/**
 * Every route needs a bearer token unless marked @Public(), and the token must hold the route's
 * scope (@RequireScope, default `chat`). The caller is attached to the request as `principal`.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ApiTokenService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = context.switchToHttp().getRequest<FastifyRequest & { principal?: Principal }>();
    const token = bearerToken(req.raw);
    if (!token)
      throw new NestclawError('unauthorized', 'Missing bearer token: send "Authorization: Bearer <token>" (see `nestclaw token`)');
    if (!this.tokens.verify(token)) throw new NestclawError('unauthorized', 'Invalid bearer token');
    const principal = OWNER;
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets) ?? 'chat';
    if (!principal.scopes.includes(scope)) throw new NestclawError('forbidden', `This token lacks the "${scope}" scope`);
    req.principal = principal;
    return true;
  }
}
