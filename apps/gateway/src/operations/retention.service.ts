import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { ConfigService } from '@nestclaw/config';
import { recordRetentionDeleted, setInboundPending } from '@nestclaw/observability';
import { RETENTION_TABLES, RetentionRepository, RetentionTable } from './retention.repository';

const DAY_MS = 86_400_000;

/**
 * Hourly sweep of the tables that grow without bound (`retention.*_days`; 0 keeps forever), in
 * batches so a big backlog never holds long locks. Also exports the pending-inbound gauge.
 */
@Injectable()
export class RetentionService implements OnModuleInit {
  private readonly logger = new Logger('Retention');
  private running = false;

  constructor(
    private readonly config: ConfigService,
    private readonly repo: RetentionRepository,
  ) {}

  onModuleInit(): void {
    for (const table of Object.keys(RETENTION_TABLES)) recordRetentionDeleted(table, 0);
  }

  @Interval('retention', 3_600_000)
  async sweep(now = Date.now()): Promise<Record<string, number>> {
    const r = this.config.get().retention;
    const removed: Record<string, number> = {};
    if (!r.enabled || this.running) return removed;
    this.running = true;
    try {
      for (const table of Object.keys(RETENTION_TABLES) as RetentionTable[]) {
        const days = r[`${table}_days` as const];
        if (!days) continue;
        const before = new Date(now - days * DAY_MS);
        let total = 0;
        for (let n = r.batch_size; n === r.batch_size; total += n) n = await this.repo.deleteBatch(table, before, r.batch_size);
        recordRetentionDeleted(table, total);
        removed[table] = total;
        if (total) this.logger.log(`removed ${total} row(s) older than ${days} days from ${table}`);
      }
    } catch (e) {
      this.logger.warn(`retention sweep stopped: ${(e as Error).message}; the next sweep retries`);
    } finally {
      this.running = false;
    }
    return removed;
  }

  @Interval('inbound-pending', 15_000)
  async exportPending(): Promise<void> {
    try {
      for (const { channel, n } of await this.repo.pendingInbound()) setInboundPending(channel, n);
    } catch {
      // the database being down is reported by /health/ready and the pool gauges
    }
  }
}
