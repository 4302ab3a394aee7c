import { Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { sha256Hex } from './pairing-code';
import { PrincipalResolver } from './principal.resolver';
import { OWNER, Principal, Scope, SCOPES } from './scopes';
import { signInRefused } from './security.errors';
import { WebLoginCodeRepository } from './web-login-code.repository';
import { WebSessionEvents } from './web-session.events';
import { WebSessionRepository } from './web-session.repository';

/** A login code from `nestclaw ui` is good for this long, once. */
export const LOGIN_CODE_TTL_MS = 2 * 60_000;

/** A signed-in browser. `cookie` (the session id itself) is only set by signIn, once: it is never stored. */
export interface WebSession {
  /** A handle for events and sockets; not a credential. */
  id: string;
  principal: Principal;
  expiresAt: Date;
  cookie?: string;
}

export type SignInCredentials = { token: string } | { code: string };

const knownScopes = (scopes: readonly string[]): Scope[] => scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));

/** The principal a stored session or code stands for: the OWNER object itself (callers compare by identity) or the paired token. */
function principalOf(tokenId: string | null, tokenName: string | null, scopes: readonly string[]): Principal | null {
  if (tokenId === null) return OWNER;
  if (tokenName === null) return null; // its token was revoked
  return { id: tokenId, name: tokenName, scopes: knownScopes(scopes) };
}

/**
 * Browser sign-in without a token in a URL (issue 25, item 2): a token or a one-time login code is
 * traded for a random 32-byte session id that lives in an HttpOnly cookie; only its sha256 is stored.
 * A session carries the scopes of the token it came from and slides its expiry with use
 * (`server.ui.session_ttl`). Sign-out ends it at once; so does revoking its token
 * (PairedTokenService.revoke). Cookies, origins and rate limits are the gateway's (the door's) business.
 */
@Injectable()
export class WebSessionService {
  constructor(
    private readonly sessions: WebSessionRepository,
    private readonly codes: WebLoginCodeRepository,
    private readonly principals: PrincipalResolver,
    private readonly events: WebSessionEvents,
    private readonly config: ConfigService,
  ) {}

  get ttlMs(): number {
    return this.config.get().server.ui.session_ttl;
  }

  /** Opens a session for a live token or an unused login code; refuses (unauthorized) anything else. */
  async signIn(credentials: SignInCredentials): Promise<WebSession> {
    const principal = 'token' in credentials ? await this.principals.resolve(credentials.token) : await this.redeem(credentials.code);
    if (!principal) throw signInRefused('token' in credentials ? 'token' : 'code');
    // The web UI is a chat; a session that could not even read itself (GET /v1/auth/session) helps nobody.
    if (!principal.scopes.includes('chat')) throw new NestclawError('forbidden', 'A web session needs a token with the "chat" scope');
    const cookie = randomBytes(32).toString('base64url');
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.ttlMs);
    await this.sessions.insert(id, sha256Hex(cookie), tokenIdOf(principal), principal.scopes, expiresAt);
    await this.sessions.deleteExpired();
    return { id, principal, expiresAt, cookie };
  }

  /** The live session behind a cookie's value, else null (unknown, expired, signed out, or its token revoked). */
  async authenticate(cookie: string): Promise<WebSession | null> {
    const row = await this.sessions.findLiveAndTouch(sha256Hex(cookie), this.ttlMs);
    const principal = row && principalOf(row.token_id, row.token_name, row.scopes);
    return row && principal ? { id: row.id, principal, expiresAt: row.expires_at } : null;
  }

  /** Ends the session behind a cookie's value at once, here and on every replica; a no-op when there is none. */
  async signOut(cookie: string): Promise<void> {
    const id = await this.sessions.deleteByHash(sha256Hex(cookie));
    if (id) await this.events.ended({ sessionId: id, tokenId: null });
  }

  /** A one-time code (2 minutes) that opens a session with `principal`'s scopes; only its sha256 is stored. */
  async createLoginCode(principal: Principal): Promise<{ code: string; expiresAt: Date }> {
    const code = randomBytes(24).toString('base64url');
    const expiresAt = new Date(Date.now() + LOGIN_CODE_TTL_MS);
    await this.codes.deleteExpired();
    await this.codes.insert(sha256Hex(code), tokenIdOf(principal), principal.scopes, expiresAt);
    return { code, expiresAt };
  }

  private async redeem(code: string): Promise<Principal | null> {
    const grant = await this.codes.use(sha256Hex(code));
    return grant && principalOf(grant.token_id, grant.token_name, grant.scopes);
  }
}

/** NULL in the tables stands for the owner token (it has no row of its own). */
function tokenIdOf(principal: Principal): string | null {
  return principal.id === OWNER.id ? null : principal.id;
}
