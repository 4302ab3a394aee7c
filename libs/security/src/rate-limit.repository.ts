import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

export interface WindowCount {
  /** Hits in the current window, this one included. */
  hits: number;
  /** Milliseconds until the current window ends (at least 1). */
  endsInMs: number;
}

/**
 * `rate_limit_windows`: fixed windows counted by every replica, so a limit holds for the deployment.
 * One statement per limited request; the database's clock decides where a window starts and ends,
 * so replicas with skewed clocks still share one window.
 */
@Injectable()
export class RateLimitRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Counts one hit for `key`. A window that is over (or a new key) starts afresh at this hit; the
   * SET expressions all read the row as it was, so the reset and the count cannot disagree. Two
   * replicas counting the same key at once serialise on its row: neither count is lost.
   */
  async countHit(key: string, windowMs: number): Promise<WindowCount> {
    const { rows } = await this.db.query<{ hits: number; ends_in_ms: number }>(
      `INSERT INTO rate_limit_windows AS w (key, window_start, window_ms, hits) VALUES ($1, now(), $2, 1)
       ON CONFLICT (key) DO UPDATE SET
         window_start = CASE WHEN w.window_start + w.window_ms * interval '1 millisecond' <= now() THEN now() ELSE w.window_start END,
         hits         = CASE WHEN w.window_start + w.window_ms * interval '1 millisecond' <= now() THEN 1 ELSE w.hits + 1 END,
         window_ms    = CASE WHEN w.window_start + w.window_ms * interval '1 millisecond' <= now() THEN EXCLUDED.window_ms ELSE w.window_ms END
       RETURNING hits,
         -- At most one window: now() is this transaction's start, and a concurrent one that started later may
         -- have opened the window (its window_start after our now()), which read 60015 ms for a 60 s window.
         LEAST(w.window_ms, GREATEST(1, ceil(extract(epoch FROM w.window_start + w.window_ms * interval '1 millisecond' - now()) * 1000)))::int AS ends_in_ms`,
      [key, windowMs],
      { name: 'rate-limit-count-hit' },
    );
    return { hits: rows[0].hits, endsInMs: rows[0].ends_in_ms };
  }

  /** Drops windows that are over: a new hit on their key starts a new row anyway. */
  async deleteEnded(): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM rate_limit_windows WHERE window_start + window_ms * interval '1 millisecond' < now()`,
    );
    return rowCount ?? 0;
  }
}
