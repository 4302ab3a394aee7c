import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import { generateToken } from './api-token.service';
import { PairedTokenRepository, TokenRow } from './paired-token.repository';
import { sha256Hex } from './pairing-code';
import { Principal, Scope, SCOPES } from './scopes';
import { WebSessionEvents } from './web-session.events';
import { WebSessionRepository } from './web-session.repository';

export interface TokenInfo {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const toInfo = (r: TokenRow): TokenInfo => ({
  id: r.id,
  name: r.name,
  scopes: r.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
  createdAt: r.created_at.toISOString(),
  lastUsedAt: r.last_used_at?.toISOString() ?? null,
  revokedAt: r.revoked_at?.toISOString() ?? null,
});

/**
 * Tokens issued to paired API clients: stored as sha256 only, scoped, listable and revocable.
 * Every check reads the database, so a revoked token is refused on its next request; the last use
 * is written at most once a minute per token (PairedTokenRepository.findLiveAndStamp). Revoking a
 * token also ends the web sessions signed in with it, and closes their WebSockets on every replica.
 */
@Injectable()
export class PairedTokenService {
  constructor(
    private readonly tokens: PairedTokenRepository,
    private readonly webSessions: WebSessionRepository,
    private readonly webSessionEvents: WebSessionEvents,
  ) {}

  /** Issues a token; the plain token is returned once and never stored. */
  async issue(name: string, scopes: readonly Scope[]): Promise<{ token: string; info: TokenInfo }> {
    const token = generateToken();
    return { token, info: toInfo(await this.tokens.insert(randomUUID(), name, sha256Hex(token), scopes)) };
  }

  /** The principal for a live paired token, else null. */
  async authenticate(token: string): Promise<Principal | null> {
    const row = await this.tokens.findLiveAndStamp(sha256Hex(token));
    if (!row) return null;
    const info = toInfo(row);
    return { id: info.id, name: info.name, scopes: info.scopes };
  }

  async list(): Promise<TokenInfo[]> {
    return (await this.tokens.listAll()).map(toInfo);
  }

  /** Revokes by id (or unique id prefix, as `nestclaw token list` shows short ids). */
  async revoke(idOrPrefix: string): Promise<TokenInfo> {
    if (!/^[0-9a-f-]{4,36}$/i.test(idOrPrefix)) throw new NestclawError('invalid_request', 'Token id must be a UUID or its prefix');
    const matches = await this.tokens.findIdsByPrefix(idOrPrefix.toLowerCase());
    if (matches.length === 0) throw new NestclawError('not_found', `No token with id ${idOrPrefix}`);
    if (matches.length > 1) throw new NestclawError('invalid_request', `Id prefix ${idOrPrefix} matches ${matches.length} tokens`);
    const revoked = toInfo(await this.tokens.markRevoked(matches[0]));
    // After the revocation is committed: the cookie check already refuses these sessions (it joins
    // api_tokens), the delete and the event only make it immediate for open sockets and tidy.
    await this.webSessions.deleteByToken(revoked.id);
    await this.webSessionEvents.ended({ sessionId: null, tokenId: revoked.id });
    return revoked;
  }
}
