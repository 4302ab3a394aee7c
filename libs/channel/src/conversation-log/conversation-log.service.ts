import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import type { DatabaseService } from '@nestclaw/db';
import { ConversationLogRepository, LogRow } from './conversation-log.repository';

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
  constructor(private readonly rows: ConversationLogRepository) {}

  /** Outside the Nest container (the CLI's `log export`): the service over a database it opened itself. */
  static forDatabase(db: DatabaseService): ConversationLogService {
    return new ConversationLogService(new ConversationLogRepository(db));
  }

  async append(e: {
    direction: 'in' | 'out' | 'refused';
    channel: string;
    endpointId?: string;
    sessionId?: string;
    content: string;
  }): Promise<void> {
    await this.rows.append(e);
  }

  async createCheckpoint(sessionId: string, summary?: string): Promise<{ id: string; createdAt: string }> {
    const cp = await this.rows.insertCheckpoint(sessionId, summary ?? null);
    if (!cp) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    return { id: cp.id, createdAt: cp.created_at.toISOString() };
  }

  /** Entries since the session's last checkpoint, plus a text block ready to re-inject into a prompt. */
  async recover(
    sessionId: string,
  ): Promise<{ sessionId: string; checkpoint: { id: string; kind: string; createdAt: string } | null; entries: LogEntry[]; text: string }> {
    const cp = await this.rows.latestCheckpoint(sessionId);
    if (!(await this.rows.sessionExists(sessionId))) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    const entries = (await this.rows.sessionEntriesSince(sessionId, cp?.created_at ?? new Date(0))).map(toEntry);
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
      const rows = await this.rows.pageBetween(from, to, after, batch);
      for (const r of rows) yield toEntry(r);
      if (rows.length < batch) return;
      after = rows[rows.length - 1].id;
    }
  }
}
