import { Injectable } from '@nestjs/common';
import { mapDatabaseError, DatabaseService } from '@nestclaw/db';

/** Tables that grow without bound, with the timestamp that ages them and what may go. */
export const RETENTION_TABLES = {
  conversation_log: { column: 'created_at', where: 'true' },
  // Only finished messages: one still queued is work to do, and its row is the dedupe key.
  inbound_messages: { column: 'received_at', where: `status <> 'received'` },
  outbound_messages: { column: 'created_at', where: 'true' },
  audit_log: { column: 'created_at', where: 'true' },
  llm_calls: { column: 'created_at', where: 'true' },
  security_events: { column: 'created_at', where: 'true' },
} as const;
export type RetentionTable = keyof typeof RETENTION_TABLES;

@Injectable()
export class RetentionRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Deletes up to `limit` rows older than `before`; returns how many went. Small batches keep locks short. */
  async deleteBatch(table: RetentionTable, before: Date, limit: number): Promise<number> {
    const { column, where } = RETENTION_TABLES[table];
    try {
      const r = await this.db.pool.query(
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} < $1 AND ${where} LIMIT $2)`,
        [before, limit],
      );
      return r.rowCount ?? 0;
    } catch (e) {
      throw mapDatabaseError(e);
    }
  }

  async pendingInbound(): Promise<{ channel: string; n: number }[]> {
    const { rows } = await this.db.pool.query<{ channel: string; n: string }>(
      `SELECT channel, count(*)::text AS n FROM inbound_messages WHERE status = 'received' GROUP BY channel`,
    );
    return rows.map((r) => ({ channel: r.channel, n: Number(r.n) }));
  }
}
