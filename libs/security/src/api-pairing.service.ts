import { Injectable, Logger } from '@nestjs/common';
import { ApiPairingRepository } from './api-pairing.repository';
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
    private readonly pairing: ApiPairingRepository,
    private readonly tokens: PairedTokenService,
  ) {}

  async createCode(scopes: readonly Scope[] = ['chat']): Promise<{ code: string; expiresAt: Date }> {
    const code = apiPairingCode();
    const expiresAt = new Date(Date.now() + API_CODE_TTL_MS);
    await this.pairing.insertCode(sha256Hex(code), scopes, expiresAt);
    return { code, expiresAt };
  }

  /** Milliseconds pairing stays locked, 0 when open. */
  async lockedFor(): Promise<number> {
    const { count, last } = await this.pairing.recentFailures(LOCKOUT_MS);
    if (count < MAX_WRONG_CODES || !last) return 0;
    return Math.max(0, last.getTime() + LOCKOUT_MS - Date.now());
  }

  async redeem(code: string, name: string): Promise<{ token: string; info: TokenInfo }> {
    const locked = await this.lockedFor();
    if (locked > 0) throw pairingLocked(locked);
    const scopes = (await this.pairing.useCode(sha256Hex(code.trim()))) as Scope[] | null;
    if (!scopes) {
      await this.pairing.recordAttempt('pair_failed', name.slice(0, 100));
      this.logger.warn(`wrong API pairing code from "${name.slice(0, 100)}"`);
      const nowLocked = await this.lockedFor();
      if (nowLocked > 0) throw pairingLocked(nowLocked);
      throw wrongPairingCode();
    }
    await this.pairing.recordAttempt('pair_ok', name.slice(0, 100));
    return this.tokens.issue(name, scopes);
  }
}
