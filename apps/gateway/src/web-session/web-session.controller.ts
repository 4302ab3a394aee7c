import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ConfigService } from '@nestclaw/config';
import { Principal, WebSessionService } from '@nestclaw/security';
import type { AuthenticatedRequest } from '../auth/bearer-auth.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { Public } from '../auth/public.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { SESSION_COOKIE, sessionCookie, sessionCookieOptions } from '../auth/session-cookie';
import { ZodPipe } from '../http/zod-validation.pipe';
import { SignInRateLimit } from './sign-in-rate-limit';

/** A token (`ncw_…` or the owner's) or a login code; either is far shorter than these bounds. */
const signInBody = z
  .strictObject({ token: z.string().min(1).max(512).optional(), code: z.string().min(1).max(128).optional() })
  .refine((b) => (b.token === undefined) !== (b.code === undefined), 'send exactly one of "token" or "code"');

const view = (principal: Principal, expiresAt: Date | null) => ({
  principal: { id: principal.id, name: principal.name, scopes: principal.scopes },
  expiresAt: expiresAt?.toISOString() ?? null,
});

/**
 * Browser sign-in (docs/security.md, "Web sessions"): a token or a one-time login code in a JSON
 * body, never in a URL, becomes an HttpOnly, SameSite=Strict cookie. What the session may do is the
 * token's scopes; BearerAuthGuard accepts the cookie on every route.
 */
@Controller('v1/auth')
export class WebSessionController {
  constructor(
    private readonly sessions: WebSessionService,
    private readonly signIns: SignInRateLimit,
    private readonly config: ConfigService,
  ) {}

  @Public()
  @Post('session')
  @HttpCode(200)
  async signIn(
    @Body(new ZodPipe(signInBody)) body: z.output<typeof signInBody>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.signIns.hit(req.ip);
    const session = await this.sessions.signIn(body.code !== undefined ? { code: body.code } : { token: body.token! });
    this.setCookie(req, reply, session.cookie!, Math.floor(this.sessions.ttlMs / 1000));
    return view(session.principal, session.expiresAt);
  }

  /** Who is signed in; with the cookie, also renews it (the server-side expiry slides with use). */
  @Get('session')
  whoAmI(@Req() req: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply, @CurrentPrincipal() who: Principal) {
    const session = req.webSession;
    const cookie = session && sessionCookie(req.raw);
    if (session && cookie) this.setCookie(req, reply, cookie, Math.round((session.expiresAt.getTime() - Date.now()) / 1000));
    return view(who, session?.expiresAt ?? null);
  }

  /** Signs out: the session ends at once (its WebSockets close on every replica) and the cookie is cleared. */
  @Delete('session')
  @HttpCode(204)
  async signOut(@Req() req: AuthenticatedRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const cookie = sessionCookie(req.raw);
    if (req.webSession && cookie) await this.sessions.signOut(cookie);
    void reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(0, this.secure(req)));
  }

  /** What `nestclaw ui` asks for: a one-time code (2 minutes) for the URL fragment of the link it prints. */
  @RequireScope('admin')
  @Post('login-codes')
  @HttpCode(201)
  async createLoginCode(@CurrentPrincipal() who: Principal) {
    const { code, expiresAt } = await this.sessions.createLoginCode(who);
    return { code, expiresAt: expiresAt.toISOString() };
  }

  private setCookie(req: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number): void {
    void reply.setCookie(SESSION_COOKIE, value, sessionCookieOptions(Math.max(0, maxAgeSeconds), this.secure(req)));
  }

  private secure(req: FastifyRequest): boolean {
    return req.protocol === 'https' || this.config.get().server.ui.secure_cookie;
  }
}
