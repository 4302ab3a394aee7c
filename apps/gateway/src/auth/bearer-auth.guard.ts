import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { NestclawError } from '@nestclaw/common';
import { ApiTokenService } from '@nestclaw/security';
import { bearerToken } from './bearer-token';
import { IS_PUBLIC } from './public.decorator';

/** Every route needs the bearer token unless marked @Public(). */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ApiTokenService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const token = bearerToken(req.raw);
    if (!token)
      throw new NestclawError('unauthorized', 'Missing bearer token: send "Authorization: Bearer <token>" (see `nestclaw token`)');
    if (!this.tokens.verify(token)) throw new NestclawError('unauthorized', 'Invalid bearer token');
    return true;
  }
}
