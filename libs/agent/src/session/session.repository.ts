import { Injectable } from '@nestjs/common';
import { asDatabaseError, DatabaseService } from '@nestclaw/db';
import type { LlmCallRecord, ToolCall } from '@nestclaw/provider';

export interface StoredMessage {
  seq: number;
  turnId: string;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls: ToolCall[] | null;
  toolCallId: string | null;
  toolName: string | null;
  status: string;
  createdAt: string;
}

export interface NewMessage {
  role: StoredMessage['role'];
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  toolName?: string;
  status?: 'ok' | 'interrupted' | 'error';
}

export interface OpenTurn {
  sessionId: string;
  turnId: string;
  agentId: string;
  content: string;
  channel: string;
  endpointId?: string;
  /** Create the session when it does not exist (else an unknown id is reported as missing). */
  create: boolean;
  historyLimit: number;
  /** A paired token's id: it may only continue sessions it created. Absent for the owner and channels. */
  principalId?: string;
}

export interface TurnProgress {
  sessionId: string;
  turnId: string;
  messages: NewMessage[];
  calls: LlmCallRecord[];
  /** Present when the turn ends: the user message leaves `pending` and the reply is logged. */
  close?: { status: 'ok' | 'interrupted' | 'error'; reply: string; channel: string; endpointId?: string };
}

export interface SessionSummary {
  id: string;
  agentId: string;
  channel: string;
  title: string | null;
  messageCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * Session and transcript storage. The turn path is two statements (open, close) so a turn costs two
 * round trips however many tables it touches; reads for the API go through Prisma.
 */
@Injectable()
export class SessionRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Commits the user message (status `pending` until the turn closes), logs it, creates the session
   * when allowed, and returns the history before this message. Null when the session does not exist.
   */
  async openTurn(t: OpenTurn): Promise<{ history: StoredMessage[]; agentId: string; created: boolean } | null> {
    const sql = `
      WITH s AS (
        ${
          t.create
            ? `INSERT INTO sessions (id, agent_id, channel, title, last_seq, principal_id) VALUES ($1, $3, $5, left($4, 80), 1, $8)
               ON CONFLICT (id) DO UPDATE SET last_seq = sessions.last_seq + 1, updated_at = now()
                 WHERE $8::text IS NULL OR sessions.principal_id = $8
               RETURNING last_seq, agent_id, (xmax = 0) AS created`
            : `UPDATE sessions SET last_seq = last_seq + 1, updated_at = now()
               WHERE id = $1 AND ($8::text IS NULL OR principal_id = $8)
               RETURNING last_seq, agent_id, ($3::text IS NULL) AS created`
        }
      ), m AS (
        INSERT INTO messages (session_id, seq, turn_id, role, content, status)
        SELECT $1, s.last_seq, $2, 'user', $4, 'pending' FROM s
      ), k AS (
        INSERT INTO checkpoints (session_id, kind) SELECT $1, 'session_start' FROM s WHERE s.created
      ), l AS (
        INSERT INTO conversation_log (direction, channel, endpoint_id, session_id, content)
        SELECT 'in', $5, $6, $1, $4 FROM s
      )
      SELECT (SELECT agent_id FROM s) AS agent_id, coalesce((SELECT created FROM s), false) AS created,
             (SELECT coalesce(json_agg(h ORDER BY h.seq), '[]'::json) FROM (
                SELECT seq, turn_id AS "turnId", role, content, tool_calls AS "toolCalls", tool_call_id AS "toolCallId",
                       tool_name AS "toolName", status, created_at AS "createdAt"
                FROM messages WHERE session_id = $1 AND EXISTS (SELECT 1 FROM s) ORDER BY seq DESC LIMIT $7) h) AS history`;
    try {
      const { rows } = await this.db.pool.query<{ agent_id: string | null; created: boolean; history: StoredMessage[] }>({
        // Named: parsed and planned once per connection instead of on every turn.
        name: this.db.statementName(t.create ? 'nestclaw_open_turn_create' : 'nestclaw_open_turn'),
        text: sql,
        values: [t.sessionId, t.turnId, t.agentId, t.content, t.channel, t.endpointId ?? null, t.historyLimit, t.principalId ?? null],
      });
      const row = rows[0];
      if (!row?.agent_id) return null;
      return { history: row.history, agentId: row.agent_id, created: row.created };
    } catch (e) {
      throw asDatabaseError(e);
    }
  }

  /** Appends transcript rows and call records for a turn, and closes it when `close` is set. */
  async recordProgress(p: TurnProgress): Promise<void> {
    const msgs = p.messages;
    const calls = p.calls;
    const sum = (f: (c: LlmCallRecord) => number) => calls.reduce((a, c) => a + f(c), 0);
    const sql = `
      WITH s AS (
        UPDATE sessions SET last_seq = last_seq + $3::int, updated_at = now(),
          input_tokens = input_tokens + $10::bigint, output_tokens = output_tokens + $11::bigint,
          cost_usd = cost_usd + $12::numeric
        WHERE id = $1 RETURNING last_seq - $3::int AS base
      ), m AS (
        INSERT INTO messages (session_id, seq, turn_id, role, content, tool_calls, tool_call_id, tool_name, status)
        SELECT $1, s.base + x.ord, $2, x.role, x.content, x.tool_calls, x.tool_call_id, x.tool_name, x.status
        FROM s, unnest($4::text[], $5::text[], $6::jsonb[], $7::text[], $8::text[], $9::text[])
          WITH ORDINALITY AS x(role, content, tool_calls, tool_call_id, tool_name, status, ord)
      ), c AS (
        INSERT INTO llm_calls (session_id, turn_id, provider, model, attempt, is_fallback, input_tokens, output_tokens,
                               cached_input_tokens, cost_usd, latency_ms, status, error_code)
        SELECT $1, $2, x.* FROM unnest($13::text[], $14::text[], $15::int[], $16::bool[], $17::int[], $18::int[], $19::int[],
                                       $20::numeric[], $21::int[], $22::text[], $23::text[]) AS x
      ), u AS (
        UPDATE messages SET status = $24 WHERE $24::text IS NOT NULL AND session_id = $1 AND turn_id = $2 AND status = 'pending'
      ), l AS (
        INSERT INTO conversation_log (direction, channel, endpoint_id, session_id, content)
        SELECT 'out', $25, $26, $1, $27 WHERE $24::text IS NOT NULL
      )
      SELECT base FROM s`;
    try {
      await this.db.pool.query({
        name: this.db.statementName('nestclaw_record_progress'),
        text: sql,
        values: [
          p.sessionId,
          p.turnId,
          msgs.length,
          msgs.map((m) => m.role),
          msgs.map((m) => m.content),
          msgs.map((m) => (m.toolCalls?.length ? JSON.stringify(m.toolCalls) : null)),
          msgs.map((m) => m.toolCallId ?? null),
          msgs.map((m) => m.toolName ?? null),
          msgs.map((m) => m.status ?? 'ok'),
          sum((c) => c.usage.inputTokens),
          sum((c) => c.usage.outputTokens),
          sum((c) => c.costUsd).toFixed(8),
          calls.map((c) => c.provider),
          calls.map((c) => c.model),
          calls.map((c) => c.attempt),
          calls.map((c) => c.isFallback),
          calls.map((c) => c.usage.inputTokens),
          calls.map((c) => c.usage.outputTokens),
          calls.map((c) => c.usage.cachedInputTokens),
          calls.map((c) => c.costUsd.toFixed(8)),
          calls.map((c) => c.latencyMs),
          calls.map((c) => c.status),
          calls.map((c) => c.errorCode ?? null),
          p.close?.status ?? null,
          p.close?.channel ?? null,
          p.close?.endpointId ?? null,
          p.close?.reply ?? null,
        ],
      });
    } catch (e) {
      throw asDatabaseError(e);
    }
  }

  /**
   * At start-up: turns left open by a crash are marked interrupted. Returns how many. Turns paused
   * for a pending tool approval are not crashed: they resume when the approval is decided.
   */
  async interruptOpenTurns(): Promise<number> {
    const { rowCount } = await this.db.pool.query(
      `UPDATE messages m SET status = 'interrupted' WHERE m.status = 'pending'
         AND NOT EXISTS (SELECT 1 FROM tool_approvals a WHERE a.turn_id = m.turn_id AND a.status = 'pending')`,
    );
    return rowCount ?? 0;
  }

  /** For resuming a paused turn: the rows of that turn in order, and the history before it. */
  async loadTurn(sessionId: string, turnId: string, historyLimit: number): Promise<{ history: StoredMessage[]; turn: StoredMessage[] }> {
    const cols = `seq, turn_id AS "turnId", role, content, tool_calls AS "toolCalls", tool_call_id AS "toolCallId",
                  tool_name AS "toolName", status, created_at AS "createdAt"`;
    try {
      const turn = await this.db.pool.query<StoredMessage>(
        `SELECT ${cols} FROM messages WHERE session_id = $1 AND turn_id = $2 ORDER BY seq`,
        [sessionId, turnId],
      );
      const first = turn.rows[0]?.seq ?? 0;
      const history = await this.db.pool.query<StoredMessage>(
        `SELECT * FROM (SELECT ${cols} FROM messages WHERE session_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3) h ORDER BY seq`,
        [sessionId, first, historyLimit],
      );
      return { history: history.rows, turn: turn.rows };
    } catch (e) {
      throw asDatabaseError(e);
    }
  }

  async exists(sessionId: string): Promise<boolean> {
    const n = await this.db.prisma.session.count({ where: { id: sessionId } });
    return n > 0;
  }

  async listRecent(limit: number, before?: Date): Promise<SessionSummary[]> {
    const rows = await this.db.prisma.session.findMany({
      where: before ? { updatedAt: { lt: before } } : undefined,
      orderBy: { updatedAt: 'desc' },
      take: limit,
      include: { _count: { select: { messages: true } } },
    });
    return rows.map((r) => ({
      id: r.id,
      agentId: r.agentId,
      channel: r.channel,
      title: r.title,
      messageCount: r._count.messages,
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      costUsd: Number(r.costUsd),
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    }));
  }

  async listMessages(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const rows = await this.db.prisma.message.findMany({
      where: { sessionId, seq: { gt: afterSeq } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    return rows.map((r) => ({
      seq: r.seq,
      turnId: r.turnId,
      role: r.role as StoredMessage['role'],
      content: r.content,
      toolCalls: (r.toolCalls as ToolCall[] | null) ?? null,
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      status: r.status,
      createdAt: r.createdAt.toISOString(),
    }));
  }
}
