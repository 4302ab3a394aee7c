import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import type { PoolClient } from 'pg';
import type { StoredMessage, StoredSummary } from '../session/session.types';

export type CompactionRecord = StoredSummary;

export interface NewSummary {
  fromSeq: number;
  toSeq: number;
  summary: string;
  usage: { calls: number; inputTokens: number; outputTokens: number; costUsd: number };
}

const COLS = `id::text AS id, stage, from_seq AS "fromSeq", to_seq AS "toSeq", summary, merged_into::text AS "mergedInto"`;

/** Compaction records: summaries of message ranges, never a rewrite of the transcript. */
@Injectable()
export class CompactionRepository {
  constructor(private readonly db: DatabaseService) {}

  /** The summaries the model sees: stage-2 merges and the stage-1 summaries not merged yet, oldest first. */
  async findActive(sessionId: string): Promise<CompactionRecord[]> {
    const { rows } = await this.db.query<CompactionRecord>(
      `SELECT ${COLS} FROM compactions WHERE session_id = $1 AND merged_into IS NULL ORDER BY from_seq`,
      [sessionId],
    );
    return rows;
  }

  async findSessionAgent(sessionId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ agent_id: string }>(`SELECT agent_id FROM sessions WHERE id = $1`, [sessionId]);
    return rows[0]?.agent_id;
  }

  async findAllForSession(sessionId: string): Promise<CompactionRecord[]> {
    const { rows } = await this.db.query<CompactionRecord>(
      `SELECT ${COLS} FROM compactions WHERE session_id = $1 ORDER BY stage, from_seq`,
      [sessionId],
    );
    return rows;
  }

  /** Messages after the last summarised one and before `beforeSeq` (exclusive), in order. */
  async findUncompacted(sessionId: string, afterSeq: number, beforeSeq: number): Promise<StoredMessage[]> {
    const { rows } = await this.db.query<StoredMessage>(
      `SELECT seq, turn_id AS "turnId", role, content, tool_calls AS "toolCalls", tool_call_id AS "toolCallId",
              tool_name AS "toolName", status, created_at AS "createdAt"
         FROM messages WHERE session_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq`,
      [sessionId, afterSeq, beforeSeq],
    );
    return rows;
  }

  /**
   * Stores stage-1 summaries. Refuses (returns false) when another compaction of the same range
   * landed first, so a message is never summarised twice at one stage.
   */
  async insertSummaries(sessionId: string, afterSeq: number, parts: NewSummary[]): Promise<boolean> {
    return this.inTransaction(sessionId, async (client) => {
      const { rows } = await client.query<{ n: number }>(
        `SELECT coalesce(max(to_seq), 0) AS n FROM compactions WHERE session_id = $1 AND stage = 1`,
        [sessionId],
      );
      if (Number(rows[0].n) !== afterSeq) return false;
      for (const p of parts) await this.insert(client, sessionId, 1, p);
      return true;
    });
  }

  /** Stores a stage-2 merge of the given stage-1 summaries and points them at it. */
  async insertMerge(sessionId: string, mergedIds: string[], merge: NewSummary): Promise<boolean> {
    return this.inTransaction(sessionId, async (client) => {
      const { rowCount } = await client.query(
        `SELECT 1 FROM compactions WHERE id = ANY($1::bigint[]) AND stage = 1 AND merged_into IS NULL FOR UPDATE`,
        [mergedIds],
      );
      if (rowCount !== mergedIds.length) return false;
      const id = await this.insert(client, sessionId, 2, merge);
      await client.query(`UPDATE compactions SET merged_into = $1 WHERE id = ANY($2::bigint[])`, [id, mergedIds]);
      return true;
    });
  }

  private async insert(client: PoolClient, sessionId: string, stage: 1 | 2, p: NewSummary): Promise<string> {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO compactions (session_id, stage, from_seq, to_seq, summary, model_calls, input_tokens, output_tokens, cost_usd)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id::text AS id`,
      [
        sessionId,
        stage,
        p.fromSeq,
        p.toSeq,
        p.summary,
        p.usage.calls,
        p.usage.inputTokens,
        p.usage.outputTokens,
        p.usage.costUsd.toFixed(8),
      ],
    );
    return rows[0].id;
  }

  /** One transaction, serialised per session by an advisory lock (two gateways may compact at once). */
  private inTransaction<T>(sessionId: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.db.transaction(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('nestclaw:compaction'), hashtext($1))`, [sessionId]);
      return fn(client);
    });
  }
}
