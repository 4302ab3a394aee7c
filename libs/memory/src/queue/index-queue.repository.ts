import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

/** A place in the change feed: an entry id (a bigint, as a string); entries are ids in commit order. */
export type FeedPosition = string;

/** Before every entry. */
export const FEED_START: FeedPosition = '0';

export interface QueueEntry {
  id: string;
  memoryId: string;
  op: 'upsert' | 'delete';
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

/**
 * `index_queue` as an ordered change feed (issue 24): every local index reads it with its own cursor
 * (`index_cursors`), so a change reaches every replica; an entry is deleted once every index that
 * counts has passed it, and `index_feed` remembers how far that went.
 */
@Injectable()
export class IndexQueueRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Up to `limit` entries after `after`, in feed order. Writers get ids in commit order (a trigger
   * takes the feed's lock before ids are handed out: see the index_feed migration), so an entry
   * committed later never has a lower id than one already read.
   */
  async readAfter(after: FeedPosition, limit: number): Promise<QueueEntry[]> {
    const { rows } = await this.db.pool.query<QueueEntry>(
      `SELECT id::text AS id, memory_id AS "memoryId", op FROM index_queue WHERE id > $1 ORDER BY id LIMIT $2`,
      [after, limit],
    );
    return rows;
  }

  /** This index's cursor (null: it never read the feed) and the feed's horizon (the last entry pruned). */
  async cursor(indexKey: string): Promise<{ position: FeedPosition | null; horizon: FeedPosition }> {
    const { rows } = await this.db.pool.query<{ position: string | null; horizon: string }>(
      `SELECT c.position::text AS position, f.pruned_upto::text AS horizon FROM index_feed f LEFT JOIN index_cursors c ON c.index_key = $1`,
      [indexKey],
    );
    return rows[0];
  }

  /**
   * Where a rebuild starting now can take over: every entry up to it was committed before the
   * rebuild reads anything, so the rebuilt index reflects it; later ones are applied after.
   */
  async head(): Promise<FeedPosition> {
    const { rows } = await this.db.pool.query<{ head: string }>(`SELECT coalesce(max(id), 0)::text AS head FROM index_queue`);
    return rows[0].head;
  }

  /**
   * Moves this index's cursor and, in the same statement, deletes the entries every index that
   * counts has passed (its own new position included): those of cursors moved within a day or whose
   * replica is alive. A long-dead replica's index rebuilds when it returns, instead of holding the feed.
   */
  async advance(indexKey: string, replicaId: string, to: FeedPosition): Promise<void> {
    await this.db.pool.query(
      `WITH c AS (
         INSERT INTO index_cursors (index_key, replica_id, position) VALUES ($1, $2, $3)
         ON CONFLICT (index_key) DO UPDATE SET replica_id = $2, position = $3, updated_at = now()
       ), b AS (
         SELECT least($3::bigint, min(position)) AS upto FROM index_cursors
          WHERE index_key <> $1 AND (updated_at > now() - interval '1 day' OR nestclaw_replica_alive(replica_id))
       ), d AS (
         DELETE FROM index_queue q USING b WHERE q.id <= b.upto RETURNING q.id
       )
       UPDATE index_feed f SET pruned_upto = m.upto FROM (SELECT max(id) AS upto FROM d) m WHERE m.upto > f.pruned_upto`,
      [indexKey, replicaId, to],
    );
  }

  /** Entries that failed `attempts` times on this replica: marked for operators (/doctor), skipped by its index. */
  async park(ids: string[], error: string, attempts: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.pool.query(
      `UPDATE index_queue SET attempts = greatest(attempts, $3), last_error = left($2, 2000), parked_at = coalesce(parked_at, now())
        WHERE id = ANY($1::bigint[])`,
      [ids, error, attempts],
    );
  }

  /**
   * Parked entries get another chance (after a reindex, or when an operator asks): each goes back
   * into the feed as a new entry, so every replica's index applies it again.
   */
  async unpark(): Promise<number> {
    const { rowCount } = await this.db.pool.query(
      `WITH p AS (DELETE FROM index_queue WHERE parked_at IS NOT NULL RETURNING memory_id, op)
       INSERT INTO index_queue (memory_id, op) SELECT memory_id, op FROM p`,
    );
    return rowCount ?? 0;
  }

  /** The feed as this index sees it: entries after its cursor, parked entries, and the age of the oldest unread. */
  async stats(after: FeedPosition): Promise<QueueStats> {
    const { rows } = await this.db.pool.query<{ pending: string; parked: string; oldest: number | null }>(
      `SELECT count(*) FILTER (WHERE id > $1) AS pending, count(*) FILTER (WHERE parked_at IS NOT NULL) AS parked,
              (extract(epoch FROM now() - min(created_at) FILTER (WHERE id > $1)) * 1000)::float8 AS oldest
         FROM index_queue`,
      [after],
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

  /** Every index's cursor with its replica and how far behind the feed it is (`/v1/cluster`). */
  async cursors(): Promise<{ indexKey: string; replicaId: string; pending: number; lagMs: number | null; updatedAt: Date }[]> {
    const { rows } = await this.db.pool.query<{
      indexKey: string;
      replicaId: string;
      pending: string;
      lagMs: number | null;
      updatedAt: Date;
    }>(
      `SELECT c.index_key AS "indexKey", c.replica_id AS "replicaId", c.updated_at AS "updatedAt",
              (SELECT count(*) FROM index_queue q WHERE q.id > c.position) AS pending,
              (SELECT (extract(epoch FROM now() - min(q.created_at)) * 1000)::float8 FROM index_queue q WHERE q.id > c.position) AS "lagMs"
         FROM index_cursors c ORDER BY c.updated_at DESC`,
    );
    return rows.map((r) => ({ ...r, pending: Number(r.pending) }));
  }
}
