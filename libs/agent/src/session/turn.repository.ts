import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import type { AttemptStart, LlmCallRecord, OpenCall } from '@nestclaw/provider';
import { recalledChunksSql, type HydratedChunk } from '@nestclaw/memory';
import type { AuditEntry } from '@nestclaw/tool';
import type { LinkedTurn, OpenTurn, StoredMessage, StoredSummary, TurnProgress } from './session.types';
import { interruptTakenOver, SessionBusy, takeOrQueue } from './session-hold.repository';

/** What `openTurn` returns: the session's agent, the history before the message and its active summaries. */
export interface OpenedTurnRows {
  history: StoredMessage[];
  /** The compaction summaries the model sees (not merged yet), oldest first: read here, not on a round trip of their own. */
  summaries: StoredSummary[];
  agentId: string;
  created: boolean;
  /** The chunks of `OpenTurn.recall` as read from the truth (empty without one). */
  recalled: HydratedChunk[];
}

/** What `openTurn` answers when another live replica runs a turn of the session, or waits for it first: that replica. */

/** Completes attempts whose `llm_calls` rows were written when they started ($13–$23, ids in $28). */
const COMPLETE_CALLS_SQL = `
      ), cu AS (
        UPDATE llm_calls l SET provider = x.provider, model = x.model, attempt = x.attempt, is_fallback = x.is_fallback,
               input_tokens = x.input_tokens, output_tokens = x.output_tokens, cached_input_tokens = x.cached_input_tokens,
               cost_usd = x.cost_usd, latency_ms = x.latency_ms, status = x.status, error_code = x.error_code
          FROM unnest($13::text[], $14::text[], $15::int[], $16::bool[], $17::int[], $18::int[], $19::int[],
                      $20::numeric[], $21::int[], $22::text[], $23::text[], $28::bigint[])
            AS x(provider, model, attempt, is_fallback, input_tokens, output_tokens, cached_input_tokens, cost_usd, latency_ms,
                 status, error_code, ledger_id)
         WHERE l.id = x.ledger_id`;

/** The general form: completes rows written at start and adds replays (no request, no row yet). */
const RECORD_CALLS_SQL = `
      ), x AS (
        SELECT * FROM unnest($13::text[], $14::text[], $15::int[], $16::bool[], $17::int[], $18::int[], $19::int[],
                             $20::numeric[], $21::int[], $22::text[], $23::text[], $28::bigint[])
          AS x(provider, model, attempt, is_fallback, input_tokens, output_tokens, cached_input_tokens, cost_usd, latency_ms,
               status, error_code, ledger_id)
      ), c AS (
        -- Attempts whose row was written when they started are completed; replays (no request) are added.
        INSERT INTO llm_calls (session_id, turn_id, provider, model, attempt, is_fallback, input_tokens, output_tokens,
                               cached_input_tokens, cost_usd, latency_ms, status, error_code)
        SELECT $1, $2, provider, model, attempt, is_fallback, input_tokens, output_tokens, cached_input_tokens, cost_usd,
               latency_ms, status, error_code FROM x WHERE ledger_id IS NULL
      ), cu AS (
        UPDATE llm_calls l SET provider = x.provider, model = x.model, attempt = x.attempt, is_fallback = x.is_fallback,
               input_tokens = x.input_tokens, output_tokens = x.output_tokens, cached_input_tokens = x.cached_input_tokens,
               cost_usd = x.cost_usd, latency_ms = x.latency_ms, status = x.status, error_code = x.error_code
          FROM x WHERE l.id = x.ledger_id`;

/**
 * A turn's rows: the user message, transcript and `llm_calls` ledger. A plain turn is four round trips however many tables
 * it touches: open (which also reads the active summaries), the ledger row (`BEGIN` + INSERT, then COMMIT), close
 * (raw SQL: the hot path; docs/architecture.md, "Round trips of a plain turn").
 */
@Injectable()
export class TurnRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Commits the user message (status `pending` until the turn closes), logs it, creates the session
   * when allowed, takes the session's hold for this replica, and returns the history before this
   * message. Null when the session does not exist (or is not the principal's); `busyWith` when a turn
   * of another live replica holds it (nothing is written then but the waiter's place in line).
   */
  async openTurn(t: OpenTurn): Promise<OpenedTurnRows | SessionBusy | null> {
    // Not opened: the replica in the way, holding the session or next in line.
    const opened = `coalesce(turn_replica = $10 AND turn_id = $2, false) AS opened, coalesce(turn_replica, turn_next) AS holder`;
    const sql = `
      WITH o AS (
        SELECT turn_replica, turn_id FROM sessions WHERE id = $1
      ), s AS (
        ${
          t.create
            ? `INSERT INTO sessions (id, agent_id, channel, title, last_seq, principal_id, turn_replica, turn_id, turn_since)
               VALUES ($1, $3, $5, left($4, 80), 1, $8, $10, $2, now())
               ON CONFLICT (id) DO UPDATE SET ${takeOrQueue('$10', '$2', [
                 ['last_seq', 'sessions.last_seq + 1'],
                 ['updated_at', 'now()'],
               ])}
                 WHERE $8::text IS NULL OR sessions.principal_id = $8
               RETURNING last_seq, agent_id, (xmax = 0) AS created, ${opened}`
            : `UPDATE sessions SET ${takeOrQueue('$10', '$2', [
                ['last_seq', 'sessions.last_seq + 1'],
                ['updated_at', 'now()'],
              ])}
               WHERE id = $1 AND ($8::text IS NULL OR principal_id = $8)
               RETURNING last_seq, agent_id, ($3::text IS NULL) AS created, ${opened}`
        }
      ), m AS (
        INSERT INTO messages (session_id, seq, turn_id, role, content, status, inbound_key)
        SELECT $1, s.last_seq, $2, 'user', $4, 'pending', $9 FROM s WHERE s.opened
      ), k AS (
        INSERT INTO checkpoints (session_id, kind) SELECT $1, 'session_start' FROM s WHERE s.created AND s.opened
      ), l AS (
        INSERT INTO conversation_log (direction, channel, endpoint_id, session_id, content)
        SELECT 'in', $5, $6, $1, $4 FROM s WHERE s.opened${interruptTakenOver('$10', '$2')}
      )
      SELECT (SELECT agent_id FROM s WHERE s.opened) AS agent_id, (SELECT holder FROM s WHERE NOT s.opened) AS busy_with,
             coalesce((SELECT created FROM s WHERE s.opened), false) AS created,
             (SELECT coalesce(json_agg(h ORDER BY h.seq), '[]'::json) FROM (
                SELECT seq, turn_id AS "turnId", role, content, tool_calls AS "toolCalls", tool_call_id AS "toolCallId",
                       tool_name AS "toolName",
                       -- This statement's snapshot predates its own writes: a turn it just interrupted reads as such.
                       CASE WHEN turn_id IN (SELECT turn_id FROM i) THEN 'interrupted' ELSE status END AS status,
                       created_at AS "createdAt"
                FROM messages WHERE session_id = $1 AND EXISTS (SELECT 1 FROM s WHERE s.opened) ORDER BY seq DESC LIMIT $7) h) AS history,
             (SELECT coalesce(json_agg(c ORDER BY c."fromSeq"), '[]'::json) FROM (
                SELECT id::text AS id, stage, from_seq AS "fromSeq", to_seq AS "toSeq", summary, merged_into::text AS "mergedInto"
                FROM compactions WHERE session_id = $1 AND merged_into IS NULL AND EXISTS (SELECT 1 FROM s WHERE s.opened)) c) AS summaries,
             -- The new message's recall candidates (none: $11 is null), read here instead of on a round trip of their own.
             (SELECT coalesce(json_agg(r), '[]'::json) FROM (${recalledChunksSql('$11', '$12', '$13')}) r) AS recalled`;
    // Named: parsed and planned once per connection instead of on every turn.
    const { rows } = await this.db.query<{
      agent_id: string | null;
      busy_with: string | null;
      created: boolean;
      history: StoredMessage[];
      summaries: StoredSummary[];
      recalled: HydratedChunk[];
    }>(
      sql,
      [
        t.sessionId,
        t.turnId,
        t.agentId,
        t.content,
        t.channel,
        t.endpointId ?? null,
        t.historyLimit,
        t.principalId ?? null,
        t.inboundKey ?? null,
        t.replica,
        t.recall?.chunkIds.length ? t.recall.chunkIds : null,
        t.recall?.scope ?? null,
        t.recall?.agentId ?? null,
      ],
      { name: t.create ? 'nestclaw_open_turn_create' : 'nestclaw_open_turn' },
    );
    const row = rows[0];
    if (row?.busy_with) return { busyWith: row.busy_with };
    if (!row?.agent_id) return null;
    return { history: row.history, summaries: row.summaries, agentId: row.agent_id, created: row.created, recalled: row.recalled };
  }

  /** Appends transcript rows and call records for a turn, and closes it when `close` is set (releasing the session's hold). */
  async recordProgress(p: TurnProgress): Promise<void> {
    const msgs = p.messages;
    const calls = p.calls;
    const sum = (f: (c: LlmCallRecord) => number) => calls.reduce((a, c) => a + f(c), 0);
    // The usual case (every attempt's row written when it started, nothing to add) has its own,
    // smaller statement: this runs once per turn on the hot path.
    const onlyUpdates = calls.every((c) => c.ledgerId);
    const ledger = onlyUpdates ? COMPLETE_CALLS_SQL : RECORD_CALLS_SQL;
    const sql = `
      WITH s AS (
        UPDATE sessions SET last_seq = last_seq + $3::int, updated_at = now(),
          input_tokens = input_tokens + $10::bigint, output_tokens = output_tokens + $11::bigint,
          cost_usd = cost_usd + $12::numeric,
          -- Closing releases the session's hold (only this turn's: a replica that took over keeps its own).
          turn_replica = CASE WHEN $24::text IS NOT NULL AND turn_id = $2 THEN NULL ELSE turn_replica END,
          turn_id = CASE WHEN $24::text IS NOT NULL AND turn_id = $2 THEN NULL ELSE turn_id END,
          turn_since = CASE WHEN $24::text IS NOT NULL AND turn_id = $2 THEN NULL ELSE turn_since END
        WHERE id = $1 RETURNING last_seq - $3::int AS base
      ), m AS (
        INSERT INTO messages (session_id, seq, turn_id, role, content, tool_calls, tool_call_id, tool_name, status)
        SELECT $1, s.base + x.ord, $2, x.role, x.content, x.tool_calls, x.tool_call_id, x.tool_name, x.status
        FROM s, unnest($4::text[], $5::text[], $6::jsonb[], $7::text[], $8::text[], $9::text[])
          WITH ORDINALITY AS x(role, content, tool_calls, tool_call_id, tool_name, status, ord)
${ledger}
      ), u AS (
        UPDATE messages SET status = $24 WHERE $24::text IS NOT NULL AND session_id = $1 AND turn_id = $2 AND status = 'pending'
      ), l AS (
        INSERT INTO conversation_log (direction, channel, endpoint_id, session_id, content)
        SELECT 'out', $25, $26, $1, $27 WHERE $24::text IS NOT NULL
      ), a AS (
        INSERT INTO audit_log (actor, action, target, outcome, duration_ms, session_id, detail)
        SELECT * FROM unnest($29::text[], $30::text[], $31::text[], $32::text[], $33::int[], $34::text[], $35::jsonb[])
      )
      SELECT base FROM s`;
    const values = [
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
      calls.map((c) => c.ledgerId ?? null),
      ...auditColumns(p.audit ?? []),
    ];
    await this.db.query(sql, values, { name: onlyUpdates ? 'nestclaw_complete_turn' : 'nestclaw_record_progress' });
  }

  /**
   * Writes an attempt's `started` row inside a transaction left open: the transport commits it in the
   * same tick as it writes the request (CallLedger), so a kill leaves both or neither. `BEGIN` and the
   * INSERT travel as one simple query: one round trip (DatabaseService.begin).
   */
  async openCall(sessionId: string, turnId: string, a: AttemptStart): Promise<OpenCall> {
    const tx = await this.db.begin<{ id: string }>({
      text: `INSERT INTO llm_calls (session_id, turn_id, provider, model, attempt, is_fallback, latency_ms, status)
             VALUES ($1, $2, $3, $4, $5, $6, 0, 'started') RETURNING id::text`,
      values: [sessionId, turnId, a.provider, a.model, a.attempt, a.isFallback],
    });
    return { id: tx.rows[0].id, commit: tx.commit, discard: tx.rollback };
  }

  /** The turn stored for an inbound message, with its final answer when it has one. */
  async findByInbound(inboundKey: string): Promise<LinkedTurn | null> {
    const { rows } = await this.db.query<LinkedTurn>(
      `SELECT u.session_id AS "sessionId", u.turn_id AS "turnId", s.agent_id AS "agentId", u.seq, u.status, u.content,
              (SELECT a.content FROM messages a
                WHERE a.session_id = u.session_id AND a.turn_id = u.turn_id AND a.role = 'assistant'
                  AND a.status = 'ok' AND a.tool_calls IS NULL
                ORDER BY a.seq DESC LIMIT 1) AS reply
         FROM messages u JOIN sessions s ON s.id = u.session_id
        WHERE u.inbound_key = $1`,
      [inboundKey],
    );
    return rows[0] ?? null;
  }

  /**
   * Replaces what an unfinished turn left behind (partial answers, tool rows) so it runs again from
   * its user message, which stays the one stored row for it; returns the history before it. A model
   * call of the earlier run still `started` died with it (the caller holds the session, so nothing runs
   * that turn now): it is closed as interrupted here, since start-up recovery of the dead replica, if it
   * ever comes, finds the turn no longer pending and would leave the row `started` for ever.
   */
  async reopenTurn(t: LinkedTurn, historyLimit: number): Promise<StoredMessage[]> {
    const { rows } = await this.db.query<{ history: StoredMessage[] }>(
      `WITH d AS (
         DELETE FROM messages WHERE session_id = $1 AND turn_id = $2 AND role <> 'user'
       ), u AS (
         UPDATE messages SET status = 'pending' WHERE session_id = $1 AND turn_id = $2 AND role = 'user'
       ), c AS (
         UPDATE llm_calls SET status = 'interrupted', error_code = 'process_exited'
          WHERE session_id = $1 AND turn_id = $2 AND status = 'started'
       )
       SELECT coalesce(json_agg(h ORDER BY h.seq), '[]'::json) AS history FROM (
         SELECT seq, turn_id AS "turnId", role, content, tool_calls AS "toolCalls", tool_call_id AS "toolCallId",
                tool_name AS "toolName", status, created_at AS "createdAt"
           FROM messages WHERE session_id = $1 AND seq < $3 ORDER BY seq DESC LIMIT $4) h`,
      [t.sessionId, t.turnId, t.seq, historyLimit],
    );
    return rows[0].history;
  }

  /** For resuming a paused turn: the rows of that turn in order, and the history before it. */
  async loadTurn(sessionId: string, turnId: string, historyLimit: number): Promise<{ history: StoredMessage[]; turn: StoredMessage[] }> {
    const cols = `seq, turn_id AS "turnId", role, content, tool_calls AS "toolCalls", tool_call_id AS "toolCallId",
                  tool_name AS "toolName", status, created_at AS "createdAt"`;
    const turn = await this.db.query<StoredMessage>(`SELECT ${cols} FROM messages WHERE session_id = $1 AND turn_id = $2 ORDER BY seq`, [
      sessionId,
      turnId,
    ]);
    const first = turn.rows[0]?.seq ?? 0;
    const history = await this.db.query<StoredMessage>(
      `SELECT * FROM (SELECT ${cols} FROM messages WHERE session_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3) h ORDER BY seq`,
      [sessionId, first, historyLimit],
    );
    return { history: history.rows, turn: turn.rows };
  }
}

/** Audit entries as the seven arrays the progress statement unnests ($29–$35), as AuditRepository.record stores one. */
function auditColumns(entries: AuditEntry[]): unknown[] {
  return [
    entries.map((e) => e.actor),
    entries.map((e) => e.action),
    entries.map((e) => e.target.slice(0, 2000)),
    entries.map((e) => e.outcome),
    entries.map((e) => e.durationMs ?? null),
    entries.map((e) => e.sessionId ?? null),
    entries.map((e) => (e.detail ? JSON.stringify(e.detail) : null)),
  ];
}
