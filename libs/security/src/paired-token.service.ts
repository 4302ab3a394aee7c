import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import { DatabaseService, asDatabaseError } from '@nestclaw/db';
import { generateToken } from './api-token.service';
import { sha256Hex } from './pairing-code';
import { Principal, Scope, SCOPES } from './scopes';

export interface TokenInfo {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface TokenRow {
  id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
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
 * Every check reads the database, so a revoked token is refused on its next request.
 */
@Injectable()
export class PairedTokenService {
  constructor(private readonly db: DatabaseService) {}

  /** Issues a token; the plain token is returned once and never stored. */
  async issue(name: string, scopes: readonly Scope[]): Promise<{ token: string; info: TokenInfo }> {
    const token = generateToken();
    const { rows } = await this.db.pool
      .query<TokenRow>(
        `INSERT INTO api_tokens (id, name, token_hash, scopes) VALUES ($1, $2, $3, $4)
         RETURNING id, name, scopes, created_at, last_used_at, revoked_at`,
        [randomUUID(), name, sha256Hex(token), [...scopes]],
      )
      .catch((e: unknown) => {
        throw asDatabaseError(e);
      });
    return { token, info: toInfo(rows[0]) };
  }

  /** The principal for a live paired token, else null. */
  async authenticate(token: string): Promise<Principal | null> {
    const { rows } = await this.db.pool
      .query<TokenRow>(
        `UPDATE api_tokens SET last_used_at = now() WHERE token_hash = $1 AND revoked_at IS NULL
         RETURNING id, name, scopes, created_at, last_used_at, revoked_at`,
        [sha256Hex(token)],
      )
      .catch((e: unknown) => {
        throw asDatabaseError(e);
      });
    const row = rows[0];
    if (!row) return null;
    const info = toInfo(row);
    return { id: info.id, name: info.name, scopes: info.scopes };
  }

  async list(): Promise<TokenInfo[]> {
    const { rows } = await this.db.pool.query<TokenRow>(
      `SELECT id, name, scopes, created_at, last_used_at, revoked_at FROM api_tokens ORDER BY created_at`,
    );
    return rows.map(toInfo);
  }

  /** Revokes by id (or unique id prefix, as `nestclaw token list` shows short ids). */
  async revoke(idOrPrefix: string): Promise<TokenInfo> {
    if (!/^[0-9a-f-]{4,36}$/i.test(idOrPrefix)) throw new NestclawError('invalid_request', 'Token id must be a UUID or its prefix');
    const { rows: matches } = await this.db.pool.query<{ id: string }>(`SELECT id FROM api_tokens WHERE id::text LIKE $1`, [
      `${idOrPrefix.toLowerCase()}%`,
    ]);
    if (matches.length === 0) throw new NestclawError('not_found', `No token with id ${idOrPrefix}`);
    if (matches.length > 1) throw new NestclawError('invalid_request', `Id prefix ${idOrPrefix} matches ${matches.length} tokens`);
    const { rows } = await this.db.pool.query<TokenRow>(
      `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1
       RETURNING id, name, scopes, created_at, last_used_at, revoked_at`,
      [matches[0].id],
    );
    return toInfo(rows[0]);
  }
}
