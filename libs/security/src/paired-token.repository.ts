import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

export interface TokenRow {
  id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, scopes, created_at, last_used_at, revoked_at';
/** How stale `last_used_at` may be: it records the last use to the minute, not to the request. */
export const LAST_USED_RESOLUTION = '1 minute';

/** `api_tokens`: paired API clients' tokens, stored as sha256 only. */
@Injectable()
export class PairedTokenRepository {
  constructor(private readonly db: DatabaseService) {}

  async insert(id: string, name: string, tokenHash: string, scopes: readonly string[]): Promise<TokenRow> {
    const { rows } = await this.db.query<TokenRow>(
      `INSERT INTO api_tokens (id, name, token_hash, scopes) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
      [id, name, tokenHash, [...scopes]],
    );
    return rows[0];
  }

  /**
   * The live token with this hash, else null: read on every request, so a revocation (from the CLI or
   * another process) refuses the very next request. `last_used_at` is only rewritten when it is a
   * minute old or more: a token used on every request (a Prometheus scrape, a busy client) costs one
   * row write a minute instead of one per request; the UPDATE that matches nothing writes nothing.
   */
  async findLiveAndStamp(tokenHash: string): Promise<TokenRow | null> {
    const { rows } = await this.db.query<TokenRow>(
      `WITH stamp AS (
         UPDATE api_tokens SET last_used_at = now()
          WHERE token_hash = $1 AND revoked_at IS NULL
            AND (last_used_at IS NULL OR last_used_at < now() - interval '${LAST_USED_RESOLUTION}')
         RETURNING id)
       SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async listAll(): Promise<TokenRow[]> {
    return (await this.db.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at`)).rows;
  }

  async findIdsByPrefix(prefix: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(`SELECT id FROM api_tokens WHERE id::text LIKE $1`, [`${prefix}%`]);
    return rows.map((r) => r.id);
  }

  /** Revokes (keeping the first revocation time) and returns the row. */
  async markRevoked(id: string): Promise<TokenRow> {
    const { rows } = await this.db.query<TokenRow>(
      `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0];
  }
}
