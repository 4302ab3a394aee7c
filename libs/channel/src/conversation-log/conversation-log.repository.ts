import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

export interface LogRow {
  id: string;
  direction: string;
  channel: string;
  endpoint_id: string | null;
  session_id: string | null;
  content: string;
  checkpoint_id: string | null;
  created_at: Date;
}

export interface CheckpointRow {
  id: string;
  kind: string;
  created_at: Date;
}

const LOG_COLUMNS = 'id, direction, channel, endpoint_id, session_id, content, checkpoint_id, created_at';

/** `conversation_log` and `checkpoints`: every message in and out, and the marks a recovery reads from. */
@Injectable()
export class ConversationLogRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Appends an entry under the session's latest checkpoint (if any). */
  async append(e: { direction: string; channel: string; endpointId?: string; sessionId?: string; content: string }): Promise<void> {
    await this.db.query(
      `INSERT INTO conversation_log (direction, channel, endpoint_id, session_id, content, checkpoint_id)
       VALUES ($1, $2, $3, $4, $5, (SELECT max(id) FROM checkpoints WHERE session_id = $4))`,
      [e.direction, e.channel, e.endpointId ?? null, e.sessionId ?? null, e.content],
    );
  }

  /** A manual checkpoint; undefined when the session does not exist. */
  async insertCheckpoint(sessionId: string, summary: string | null): Promise<{ id: string; created_at: Date } | undefined> {
    const { rows } = await this.db.query<{ id: string; created_at: Date }>(
      `INSERT INTO checkpoints (session_id, kind, summary) SELECT id, 'manual', $2 FROM sessions WHERE id = $1 RETURNING id, created_at`,
      [sessionId, summary],
    );
    return rows[0];
  }

  async latestCheckpoint(sessionId: string): Promise<CheckpointRow | undefined> {
    const { rows } = await this.db.query<CheckpointRow>(
      `SELECT id, kind, created_at FROM checkpoints WHERE session_id = $1 ORDER BY id DESC LIMIT 1`,
      [sessionId],
    );
    return rows[0];
  }

  async sessionExists(sessionId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(`SELECT 1 FROM sessions WHERE id = $1`, [sessionId]);
    return !!rowCount;
  }

  /** A session's entries from `since` on, oldest first. */
  async sessionEntriesSince(sessionId: string, since: Date): Promise<LogRow[]> {
    const { rows } = await this.db.query<LogRow>(
      `SELECT ${LOG_COLUMNS} FROM conversation_log WHERE session_id = $1 AND created_at >= $2 ORDER BY id`,
      [sessionId, since],
    );
    return rows;
  }

  /** One page of all entries in [from, to) after id `after`, oldest first. */
  async pageBetween(from: Date, to: Date, after: string, limit: number): Promise<LogRow[]> {
    const { rows } = await this.db.query<LogRow>(
      `SELECT ${LOG_COLUMNS} FROM conversation_log WHERE created_at >= $1 AND created_at < $2 AND id > $3 ORDER BY id LIMIT $4`,
      [from, to, after, limit],
    );
    return rows;
  }
}
