import { Injectable } from '@nestjs/common';
import { DatabaseService, viaPrisma } from '@nestclaw/db';

/**
 * `api_pairing_codes` and the pairing rows of `security_events` (shared by the CLI and the gateway),
 * through Prisma: a few statements per pairing, never on a turn.
 */
@Injectable()
export class ApiPairingRepository {
  constructor(private readonly db: DatabaseService) {}

  async insertCode(codeHash: string, scopes: readonly string[], expiresAt: Date): Promise<void> {
    await viaPrisma(() =>
      this.db.prisma.apiPairingCode.create({ data: { codeHash, scopes: [...scopes], expiresAt }, select: { id: true } }),
    );
  }

  /** Marks a live, unused code used (one statement: only one redeemer wins); its scopes, or null when wrong, expired or used. */
  async useCode(codeHash: string): Promise<string[] | null> {
    const rows = await viaPrisma(() =>
      this.db.prisma.apiPairingCode.updateManyAndReturn({
        where: { codeHash, usedAt: null, expiresAt: { gt: new Date() } },
        data: { usedAt: new Date() },
        select: { scopes: true },
      }),
    );
    return rows[0]?.scopes ?? null;
  }

  async recordAttempt(kind: 'pair_failed' | 'pair_ok', subject: string): Promise<void> {
    await viaPrisma(() => this.db.prisma.securityEvent.create({ data: { kind, subject }, select: { id: true } }));
  }

  /** Wrong codes within the window and since the last success, with the time of the latest. */
  async recentFailures(windowMs: number): Promise<{ count: number; last: Date | null }> {
    const lastOk = await viaPrisma(() =>
      this.db.prisma.securityEvent.findFirst({ where: { kind: 'pair_ok' }, orderBy: { createdAt: 'desc' }, select: { createdAt: true } }),
    );
    const windowStart = new Date(Date.now() - windowMs);
    const since = lastOk && lastOk.createdAt > windowStart ? lastOk.createdAt : windowStart;
    const failed = await viaPrisma(() =>
      this.db.prisma.securityEvent.aggregate({
        where: { kind: 'pair_failed', createdAt: { gt: since } },
        _count: { _all: true },
        _max: { createdAt: true },
      }),
    );
    return { count: failed._count._all, last: failed._max.createdAt };
  }
}
