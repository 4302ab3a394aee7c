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

  /** The live token with this hash, its last use stamped now; null when unknown or revoked. */
  async touchLive(tokenHash: string): Promise<TokenRow | null> {
    const { rows } = await this.db.query<TokenRow>(
      `UPDATE api_tokens SET last_used_at = now() WHERE token_hash = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
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
