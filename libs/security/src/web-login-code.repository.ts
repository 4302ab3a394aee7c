import { Injectable } from '@nestjs/common';
import { DatabaseService, viaPrisma } from '@nestclaw/db';

export interface LoginCodeGrant {
  token_id: string | null;
  /** The paired token's name when it is still live; null for the owner or a revoked token. */
  token_name: string | null;
  scopes: string[];
}

/** `web_login_codes`: the one-time codes `nestclaw ui` puts in a URL fragment, stored as sha256 only. */
@Injectable()
export class WebLoginCodeRepository {
  constructor(private readonly db: DatabaseService) {}

  async insert(codeHash: string, tokenId: string | null, scopes: readonly string[], expiresAt: Date): Promise<void> {
    await viaPrisma(() =>
      this.db.prisma.webLoginCode.create({ data: { codeHash, tokenId, scopes: [...scopes], expiresAt }, select: { codeHash: true } }),
    );
  }

  /**
   * Marks a live, unused code used, in one statement (two browsers racing with one code: one wins),
   * and returns what it grants, else null. The granting token's liveness is read in the same statement.
   */
  async use(codeHash: string): Promise<LoginCodeGrant | null> {
    const { rows } = await this.db.query<LoginCodeGrant>(
      `UPDATE web_login_codes c SET used_at = now()
        WHERE c.code_hash = $1 AND c.used_at IS NULL AND c.expires_at > now()
       RETURNING c.token_id, c.scopes,
                 (SELECT t.name FROM api_tokens t WHERE t.id = c.token_id AND t.revoked_at IS NULL) AS token_name`,
      [codeHash],
    );
    return rows[0] ?? null;
  }

  /** Drops codes past their expiry, used or not (swept when a new one is made). */
  async deleteExpired(): Promise<void> {
    await viaPrisma(() => this.db.prisma.webLoginCode.deleteMany({ where: { expiresAt: { lte: new Date() } } }));
  }
}
