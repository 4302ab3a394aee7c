import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { DatabaseService, mapDatabaseError } from '@nestclaw/db';

export interface LogEntry {
  id: string;
  direction: string;
  channel: string;
  endpointId: string | null;
  sessionId: string | null;
  content: string;
  checkpointId: string | null;
  createdAt: string;
}

interface LogRow {
  id: string;
  direction: string;
  channel: string;
  endpoint_id: string | null;
  session_id: string | null;
  content: string;
  checkpoint_id: string | null;
  created_at: Date;
}

const toEntry = (r: LogRow): LogEntry => ({
  id: r.id,
  direction: r.direction,
  channel: r.channel,
  endpointId: r.endpoint_id,
  sessionId: r.session_id,
  content: r.content,
  checkpointId: r.checkpoint_id,
  createdAt: r.created_at.toISOString(),
});

/**
 * The communication bridge (design notes): every message in and out, refused ones included.
 * The agent logs the turns it runs; this service logs what it does not (refusals, pairing and
 * command replies), manages checkpoints and answers "what happened since the last checkpoint".
 */
@Injectable()
export class ConversationLogService {
  constructor(private readonly db: DatabaseService) {}

  async append(e: {
    direction: 'in' | 'out' | 'refused';
    channel: string;
    endpointId?: string;
    sessionId?: string;
    content: string;
  }): Promise<void> {
    await this.db.pool
      .query(
        `INSERT INTO conversation_log (direction, channel, endpoint_id, session_id, content, checkpoint_id)
         VALUES ($1, $2, $3, $4, $5, (SELECT max(id) FROM checkpoints WHERE session_id = $4))`,
        [e.direction, e.channel, e.endpointId ?? null, e.sessionId ?? null, e.content],
      )
      .catch((err: unknown) => {
        throw mapDatabaseError(err);
      });
  }

  async createCheckpoint(sessionId: string, summary?: string): Promise<{ id: string; createdAt: string }> {
    const { rows } = await this.db.pool.query<{ id: string; created_at: Date }>(
      `INSERT INTO checkpoints (session_id, kind, summary) SELECT id, 'manual', $2 FROM sessions WHERE id = $1 RETURNING id, created_at`,
      [sessionId, summary ?? null],
    );
    if (!rows[0]) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    return { id: rows[0].id, createdAt: rows[0].created_at.toISOString() };
  }

  /** Entries since the session's last checkpoint, plus a text block ready to re-inject into a prompt. */
  async recover(
    sessionId: string,
  ): Promise<{ sessionId: string; checkpoint: { id: string; kind: string; createdAt: string } | null; entries: LogEntry[]; text: string }> {
    const { rows: cps } = await this.db.pool.query<{ id: string; kind: string; created_at: Date }>(
      `SELECT id, kind, created_at FROM checkpoints WHERE session_id = $1 ORDER BY id DESC LIMIT 1`,
      [sessionId],
    );
    const { rowCount } = await this.db.pool.query(`SELECT 1 FROM sessions WHERE id = $1`, [sessionId]);
    if (!rowCount) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    const cp = cps[0];
    const { rows } = await this.db.pool.query<LogRow>(
      `SELECT id, direction, channel, endpoint_id, session_id, content, checkpoint_id, created_at FROM conversation_log
        WHERE session_id = $1 AND created_at >= $2 ORDER BY id`,
      [sessionId, cp?.created_at ?? new Date(0)],
    );
    const entries = rows.map(toEntry);
    const who = (d: string) => (d === 'in' ? 'user' : d === 'out' ? 'assistant' : 'refused');
    const text = [
      `[conversation since ${cp ? `checkpoint ${cp.id} (${cp.kind}, ${cp.created_at.toISOString()})` : 'the start'}; ${entries.length} message(s)]`,
      ...entries.map((e) => `${e.createdAt} ${who(e.direction)} via ${e.channel}: ${e.content}`),
    ].join('\n');
    return { sessionId, checkpoint: cp ? { id: cp.id, kind: cp.kind, createdAt: cp.created_at.toISOString() } : null, entries, text };
  }

  /** Streams the log between two instants as entries (the CLI writes them as JSONL). */
  async *export(from: Date, to: Date, batch = 1000): AsyncGenerator<LogEntry> {
    let after = '0';
    for (;;) {
      const { rows } = await this.db.pool.query<LogRow>(
        `SELECT id, direction, channel, endpoint_id, session_id, content, checkpoint_id, created_at FROM conversation_log
          WHERE created_at >= $1 AND created_at < $2 AND id > $3 ORDER BY id LIMIT $4`,
        [from, to, after, batch],
      );
      for (const r of rows) yield toEntry(r);
      if (rows.length < batch) return;
      after = rows[rows.length - 1].id;
    }
  }
}
