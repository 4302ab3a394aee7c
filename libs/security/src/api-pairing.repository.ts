import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

/** `api_pairing_codes` and the pairing rows of `security_events` (shared by the CLI and the gateway). */
@Injectable()
export class ApiPairingRepository {
  constructor(private readonly db: DatabaseService) {}

  async insertCode(codeHash: string, scopes: readonly string[], expiresAt: Date): Promise<void> {
    await this.db.query(`INSERT INTO api_pairing_codes (code_hash, scopes, expires_at) VALUES ($1, $2, $3)`, [
      codeHash,
      [...scopes],
      expiresAt,
    ]);
  }

  /** Marks a live, unused code used; its scopes, or null when wrong, expired or used. */
  async useCode(codeHash: string): Promise<string[] | null> {
    const { rows } = await this.db.query<{ scopes: string[] }>(
      `UPDATE api_pairing_codes SET used_at = now()
        WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING scopes`,
      [codeHash],
    );
    return rows[0]?.scopes ?? null;
  }

  async recordAttempt(kind: 'pair_failed' | 'pair_ok', subject: string): Promise<void> {
    await this.db.query(`INSERT INTO security_events (kind, subject) VALUES ($1, $2)`, [kind, subject]);
  }

  /** Wrong codes within the window and since the last success, with the time of the latest. */
  async recentFailures(windowMs: number): Promise<{ count: number; last: Date | null }> {
    const { rows } = await this.db.query<{ n: string; last: Date | null }>(
      `SELECT count(*) AS n, max(created_at) AS last FROM security_events
        WHERE kind = 'pair_failed' AND created_at > now() - make_interval(secs => $1::double precision / 1000)
          AND created_at > coalesce((SELECT max(created_at) FROM security_events WHERE kind = 'pair_ok'), 'epoch')`,
      [windowMs],
    );
    return { count: Number(rows[0].n), last: rows[0].last };
  }
}
