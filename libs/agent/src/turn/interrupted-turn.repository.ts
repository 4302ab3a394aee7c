import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

/** What a turn cut short by a crash left behind, as far as recovery must know. */
export interface InterruptedTurnState {
  /** The notice already stored as this turn's answer (a crash came after it was written). */
  notice: string | null;
  /** Ledger rows of requests that may have left (every attempt but replays from the idempotency store). */
  modelCalls: number;
  /** Paused for a tool approval still pending: the decision resumes it, recovery leaves it alone. */
  paused: boolean;
  /** The tool calls of its stored assistant rows (a call that may change something is stored before it starts). */
  toolCalls: { name: string; arguments: string }[];
}

export interface TurnNotice {
  sessionId: string;
  turnId: string;
  notice: string;
  channel: string;
  endpointId?: string;
}

/** SQL for turns interrupted by a crash: what they left behind, and closing one with a notice. */
@Injectable()
export class InterruptedTurnRepository {
  constructor(private readonly db: DatabaseService) {}

  async state(sessionId: string, turnId: string): Promise<InterruptedTurnState> {
    const { rows } = await this.db.query<{
      notice: string | null;
      model_calls: string;
      paused: boolean;
      tool_calls: { name: string; arguments: string }[];
    }>(
      `SELECT (SELECT content FROM messages
                WHERE session_id = $1 AND turn_id = $2 AND role = 'assistant' AND status = 'notice' LIMIT 1) AS notice,
              (SELECT count(*) FROM llm_calls WHERE session_id = $1 AND turn_id = $2 AND status <> 'cached') AS model_calls,
              EXISTS (SELECT 1 FROM tool_approvals WHERE turn_id = $2 AND status = 'pending') AS paused,
              (SELECT coalesce(jsonb_agg(c), '[]'::jsonb) FROM messages m, jsonb_array_elements(m.tool_calls) c
                WHERE m.session_id = $1 AND m.turn_id = $2 AND m.role = 'assistant' AND m.tool_calls IS NOT NULL) AS tool_calls`,
      [sessionId, turnId],
    );
    const r = rows[0];
    return { notice: r.notice, modelCalls: Number(r.model_calls), paused: r.paused, toolCalls: r.tool_calls };
  }

  /**
   * Closes the turn with the notice as its answer (assistant row, status `notice`), in one statement:
   * the user row stays the turn's only one and is marked interrupted, calls still `started` are
   * marked interrupted (their process is gone), and the reply is logged like any other.
   */
  async closeWithNotice(t: TurnNotice): Promise<void> {
    await this.db.query(
      `WITH s AS (
         UPDATE sessions SET last_seq = last_seq + 1, updated_at = now() WHERE id = $1 RETURNING last_seq
       ), m AS (
         INSERT INTO messages (session_id, seq, turn_id, role, content, status)
         SELECT $1, s.last_seq, $2, 'assistant', $3, 'notice' FROM s
       ), u AS (
         UPDATE messages SET status = 'interrupted' WHERE session_id = $1 AND turn_id = $2 AND role = 'user'
       ), c AS (
         UPDATE llm_calls SET status = 'interrupted', error_code = 'process_exited'
          WHERE session_id = $1 AND turn_id = $2 AND status = 'started'
       )
       INSERT INTO conversation_log (direction, channel, endpoint_id, session_id, content)
       SELECT 'out', $4, $5, $1, $3 FROM s`,
      [t.sessionId, t.turnId, t.notice, t.channel, t.endpointId ?? null],
    );
  }
}
