import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

export interface QueueEntry {
  id: string;
  memoryId: string;
  op: 'upsert' | 'delete';
  attempts: number;
}

export interface ParkedEntry {
  id: string;
  memoryId: string;
  attempts: number;
  lastError: string | null;
  parkedAt: string;
}

export interface QueueStats {
  pending: number;
  parked: number;
  oldestPendingMs: number | null;
}

/** How long a claimed entry is hidden from other workers; a crashed worker's entries reappear after it. */
const LEASE_MS = 60_000;

/**
 * `index_queue`: claimed with FOR UPDATE SKIP LOCKED in a short transaction that only moves the
 * entries' next attempt past a lease, so embedding calls and index writes happen outside any
 * transaction and a crash mid-batch only delays the entries until the lease runs out.
 */
@Injectable()
export class IndexQueueRepository {
  constructor(private readonly db: DatabaseService) {}

  async claim(limit: number): Promise<QueueEntry[]> {
    const { rows } = await this.db.pool.query<QueueEntry>(
      `UPDATE index_queue q SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
         FROM (SELECT id FROM index_queue WHERE parked_at IS NULL AND next_attempt_at <= now()
                ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) c
        WHERE q.id = c.id
        RETURNING q.id::text AS id, q.memory_id AS "memoryId", q.op, q.attempts`,
      [limit, LEASE_MS],
    );
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  async complete(ids: string[]): Promise<void> {
    if (ids.length) await this.db.pool.query(`DELETE FROM index_queue WHERE id = ANY($1::bigint[])`, [ids]);
  }

  /** Retry later with exponential backoff; park once `maxAttempts` is reached. */
  async fail(ids: string[], error: string, o: { maxAttempts: number; baseMs: number; maxMs: number }): Promise<number> {
    if (ids.length === 0) return 0;
    const { rows } = await this.db.pool.query<{ parked: boolean }>(
      `UPDATE index_queue SET attempts = attempts + 1, last_error = left($2, 2000),
              next_attempt_at = now() + make_interval(secs => least($4::double precision, $3::double precision * power(2, attempts)) / 1000),
              parked_at = CASE WHEN attempts + 1 >= $5 THEN now() END
        WHERE id = ANY($1::bigint[]) RETURNING parked_at IS NOT NULL AS parked`,
      [ids, error, o.baseMs, o.maxMs, o.maxAttempts],
    );
    return rows.filter((r) => r.parked).length;
  }

  /** Parked entries get another chance (after a reindex, or when an operator asks). */
  async unpark(): Promise<number> {
    const { rowCount } = await this.db.pool.query(
      `UPDATE index_queue SET parked_at = NULL, attempts = 0, next_attempt_at = now() WHERE parked_at IS NOT NULL`,
    );
    return rowCount ?? 0;
  }

  /** Entries up to this id are reflected in a rebuilt index. */
  async maxId(): Promise<string> {
    const { rows } = await this.db.pool.query<{ m: string | null }>(`SELECT max(id)::text AS m FROM index_queue`);
    return rows[0].m ?? '0';
  }

  async stats(): Promise<QueueStats> {
    const { rows } = await this.db.pool.query<{ pending: string; parked: string; oldest: number | null }>(
      `SELECT count(*) FILTER (WHERE parked_at IS NULL) AS pending, count(*) FILTER (WHERE parked_at IS NOT NULL) AS parked,
              (extract(epoch FROM now() - min(created_at) FILTER (WHERE parked_at IS NULL)) * 1000)::float8 AS oldest
         FROM index_queue`,
    );
    return { pending: Number(rows[0].pending), parked: Number(rows[0].parked), oldestPendingMs: rows[0].oldest };
  }

  async parked(limit = 10): Promise<ParkedEntry[]> {
    const { rows } = await this.db.pool.query<ParkedEntry>(
      `SELECT id::text AS id, memory_id AS "memoryId", attempts, last_error AS "lastError", parked_at AS "parkedAt"
         FROM index_queue WHERE parked_at IS NOT NULL ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows;
  }
}
