import { Injectable, OnModuleInit } from '@nestjs/common';
import { DatabaseService, observeStatements } from '@nestclaw/db';
import { observeMigrations, observePool, recordApprovalDecided, recordApprovalRequested, statementTracer } from '@nestclaw/observability';
import { ApprovalService } from '@nestclaw/tool';

/**
 * Connects state owned elsewhere to the metrics, from the composition root so those libs stay
 * unaware: the pg pool and migrations (read at scrape time), the approval events, and one span per
 * SQL statement when tracing is on.
 */
@Injectable()
export class TelemetryWiring implements OnModuleInit {
  constructor(
    private readonly db: DatabaseService,
    private readonly approvals: ApprovalService,
  ) {}

  onModuleInit(): void {
    observeStatements(statementTracer());
    const pool = this.db.pool;
    observePool(() => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }));
    const migrations = this.db.migrations;
    if (migrations) observeMigrations(() => migrations.alreadyApplied + migrations.applied.length);
    this.approvals.events.on('requested', () => recordApprovalRequested());
    this.approvals.events.on('decided', ({ approval }) => {
      const waitMs = approval.decidedAt ? Date.parse(approval.decidedAt) - Date.parse(approval.requestedAt) : undefined;
      recordApprovalDecided(approval.tool, approval.status, waitMs);
    });
  }
}
