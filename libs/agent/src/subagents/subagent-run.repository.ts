import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

export interface SubagentSpend {
  count: number;
  costUsd: number;
}

/** Subagent runs per parent session: the limits are checked against these rows, so a restart forgets nothing. */
@Injectable()
export class SubagentRunRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Records a child run if the parent session is still within its limits, else returns what it has
   * used. The parent's advisory lock makes two spawns at once count each other.
   */
  async reserve(
    run: { id: string; parentSessionId: string; childSessionId: string; agentId: string },
    limits: { maxCount: number; maxCostUsd: number },
  ): Promise<{ ok: true } | ({ ok: false } & SubagentSpend)> {
    return this.db.transaction(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('subagents:' || $1))`, [run.parentSessionId]);
      const { rows } = await client.query<{ count: number; cost: string }>(
        `SELECT count(*)::int AS count, coalesce(sum(cost_usd), 0)::text AS cost FROM subagent_runs WHERE parent_session_id = $1`,
        [run.parentSessionId],
      );
      const used = { count: rows[0].count, costUsd: Number(rows[0].cost) };
      if (used.count >= limits.maxCount || used.costUsd >= limits.maxCostUsd) return { ok: false as const, ...used };
      await client.query(
        `INSERT INTO subagent_runs (id, parent_session_id, child_session_id, agent_id, status) VALUES ($1, $2, $3, $4, 'running')`,
        [run.id, run.parentSessionId, run.childSessionId, run.agentId],
      );
      return { ok: true as const };
    });
  }

  async finish(id: string, status: string, usage: { inputTokens: number; outputTokens: number; costUsd: number }): Promise<void> {
    await this.db.query(
      `UPDATE subagent_runs SET status = $2, finished_at = now(), input_tokens = $3, output_tokens = $4, cost_usd = $5 WHERE id = $1`,
      [id, status, usage.inputTokens, usage.outputTokens, usage.costUsd.toFixed(8)],
    );
  }
}
