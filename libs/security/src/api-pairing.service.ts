import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import { apiPairingCode, sha256Hex } from './pairing-code';
import { PairedTokenService, TokenInfo } from './paired-token.service';
import { Scope } from './scopes';
import { pairingLocked, wrongPairingCode } from './security.errors';

export const API_CODE_TTL_MS = 5 * 60_000;
export const MAX_WRONG_CODES = 5;
export const LOCKOUT_MS = 15 * 60_000;

/**
 * `nestclaw pair` → 6-digit code (5 min) → `POST /v1/pair { code, name }` → scoped token.
 * Codes live in the database so the CLI and the gateway (two processes) share them; five wrong codes
 * within the lockout window lock pairing for everyone for 15 minutes (a 6-digit code cannot survive
 * unlimited guessing).
 */
@Injectable()
export class ApiPairingService {
  private readonly logger = new Logger('Pairing');

  constructor(
    private readonly db: DatabaseService,
    private readonly tokens: PairedTokenService,
  ) {}

  async createCode(scopes: readonly Scope[] = ['chat']): Promise<{ code: string; expiresAt: Date }> {
    const code = apiPairingCode();
    const expiresAt = new Date(Date.now() + API_CODE_TTL_MS);
    await this.db.pool.query(`INSERT INTO api_pairing_codes (code_hash, scopes, expires_at) VALUES ($1, $2, $3)`, [
      sha256Hex(code),
      [...scopes],
      expiresAt,
    ]);
    return { code, expiresAt };
  }

  /** Milliseconds pairing stays locked, 0 when open. */
  async lockedFor(): Promise<number> {
    const { rows } = await this.db.pool.query<{ n: string; last: Date | null }>(
      `SELECT count(*) AS n, max(created_at) AS last FROM security_events
        WHERE kind = 'pair_failed' AND created_at > now() - make_interval(secs => $1::double precision / 1000)
          AND created_at > coalesce((SELECT max(created_at) FROM security_events WHERE kind = 'pair_ok'), 'epoch')`,
      [LOCKOUT_MS],
    );
    const { n, last } = rows[0];
    if (Number(n) < MAX_WRONG_CODES || !last) return 0;
    return Math.max(0, last.getTime() + LOCKOUT_MS - Date.now());
  }

  async redeem(code: string, name: string): Promise<{ token: string; info: TokenInfo }> {
    const locked = await this.lockedFor();
    if (locked > 0) throw pairingLocked(locked);
    const { rows } = await this.db.pool.query<{ scopes: Scope[] }>(
      `UPDATE api_pairing_codes SET used_at = now()
        WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING scopes`,
      [sha256Hex(code.trim())],
    );
    if (!rows[0]) {
      await this.db.pool.query(`INSERT INTO security_events (kind, subject) VALUES ('pair_failed', $1)`, [name.slice(0, 100)]);
      this.logger.warn(`wrong API pairing code from "${name.slice(0, 100)}"`);
      const nowLocked = await this.lockedFor();
      if (nowLocked > 0) throw pairingLocked(nowLocked);
      throw wrongPairingCode();
    }
    await this.db.pool.query(`INSERT INTO security_events (kind, subject) VALUES ('pair_ok', $1)`, [name.slice(0, 100)]);
    return this.tokens.issue(name, rows[0].scopes);
  }
}
