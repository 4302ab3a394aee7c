import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService, viaPrisma } from '@nestclaw/db';

export interface AuditEntry {
  /** "owner", a token id, "agent:<id>" or "system". */
  actor: string;
  /** tool.execute | approval.request | approval.decide | approval.expire | approval.cancel */
  action: string;
  target: string;
  outcome: string;
  durationMs?: number;
  sessionId?: string;
  detail?: Record<string, unknown>;
}

export interface AuditRecord extends AuditEntry {
  id: number;
  createdAt: string;
}

/**
 * The append-only audit trail of tool executions and approval requests and decisions. Writing stays
 * raw pg (a turn's tool step writes it: no Prisma query compiler on the turn path); the admin API's
 * pages are read through Prisma.
 */
@Injectable()
export class AuditRepository {
  private readonly logger = new Logger('Audit');

  constructor(private readonly db: DatabaseService) {}

  /** Never fails the caller: a lost audit row is logged loudly instead. */
  async record(e: AuditEntry): Promise<void> {
    try {
      await this.db.pool.query(
        `INSERT INTO audit_log (actor, action, target, outcome, duration_ms, session_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          e.actor,
          e.action,
          e.target.slice(0, 2000),
          e.outcome,
          e.durationMs ?? null,
          e.sessionId ?? null,
          e.detail ? JSON.stringify(e.detail) : null,
        ],
      );
    } catch (err) {
      this.logger.error(`could not write audit entry ${e.action} ${e.target}: ${(err as Error).message}`);
    }
  }

  /** Newest first; page with `before` = the last id seen. */
  async page(limit: number, before?: number, action?: string): Promise<AuditRecord[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.auditLog.findMany({
        where: { ...(before === undefined ? {} : { id: { lt: BigInt(before) } }), ...(action === undefined ? {} : { action }) },
        orderBy: { id: 'desc' },
        take: limit,
      }),
    );
    return rows.map((r) => ({
      id: Number(r.id),
      createdAt: r.createdAt.toISOString(),
      actor: r.actor,
      action: r.action,
      target: r.target,
      outcome: r.outcome,
      durationMs: r.durationMs ?? undefined,
      sessionId: r.sessionId ?? undefined,
      detail: (r.detail as Record<string, unknown> | null) ?? undefined,
    }));
  }
}
