import { Injectable } from '@nestjs/common';
import { mapDatabaseError, DatabaseService } from '@nestclaw/db';

export const USAGE_GROUPS = ['day', 'month', 'model', 'session', 'agent', 'agent_day', 'agent_month', 'model_day', 'model_month'] as const;
export type UsageGroupBy = (typeof USAGE_GROUPS)[number];

export interface UsageTotals {
  /** Every recorded attempt, failed and cached ones included. */
  calls: number;
  /** Attempts that cost something or reported tokens (what the providers billed). */
  billedCalls: number;
  failedCalls: number;
  cachedCalls: number;
  /** Attempts cut short by a crash of the gateway: sent (or about to be), outcome and tokens unknown. */
  interruptedCalls: number;
  /** Attempts in flight right now (written when they start, completed when they end). */
  inFlightCalls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
}

export interface UsageGroup extends UsageTotals {
  key: string;
}

export interface UsageReport {
  from: string;
  to: string;
  groupBy: UsageGroupBy;
  totals: UsageTotals;
  groups: UsageGroup[];
}

/** Group keys are computed in UTC so a day means the same thing on every server. */
const DAY = `to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
const MONTH = `to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM')`;
const MODEL = `c.provider || '/' || c.model`;
/** The session's agent; calls outside a session (none today) group as "(none)". */
const AGENT = `coalesce(s.agent_id, '(none)')`;
const KEY_SQL: Record<UsageGroupBy, string> = {
  day: DAY,
  month: MONTH,
  model: MODEL,
  session: `coalesce(c.session_id, '(none)')`,
  agent: AGENT,
  agent_day: `${AGENT} || ' ' || ${DAY}`,
  agent_month: `${AGENT} || ' ' || ${MONTH}`,
  model_day: `${MODEL} || ' ' || ${DAY}`,
  model_month: `${MODEL} || ' ' || ${MONTH}`,
};

interface Row {
  key: string | null;
  calls: string;
  billed: string;
  failed: string;
  cached: string;
  interrupted: string;
  in_flight: string;
  input: string;
  output: string;
  cached_input: string;
  cost: string;
}

const toTotals = (r: Row): UsageTotals => ({
  calls: Number(r.calls),
  billedCalls: Number(r.billed),
  failedCalls: Number(r.failed),
  cachedCalls: Number(r.cached),
  interruptedCalls: Number(r.interrupted),
  inFlightCalls: Number(r.in_flight),
  inputTokens: Number(r.input),
  outputTokens: Number(r.output),
  cachedInputTokens: Number(r.cached_input),
  // numeric(…, 8) summed exactly in SQL; the text form keeps every digit until here.
  costUsd: Number(r.cost),
});

const EMPTY: Row = {
  key: null,
  calls: '0',
  billed: '0',
  failed: '0',
  cached: '0',
  interrupted: '0',
  in_flight: '0',
  input: '0',
  output: '0',
  cached_input: '0',
  cost: '0',
};

/** Spend from the `llm_calls` ledger (one row per attempt, written when it starts and completed when it ends). */
@Injectable()
export class UsageRepository {
  constructor(private readonly db: DatabaseService) {}

  async report(from: Date, to: Date, groupBy: UsageGroupBy): Promise<UsageReport> {
    const sql = `
      SELECT ${KEY_SQL[groupBy]} AS key,
             count(*) AS calls,
             count(*) FILTER (WHERE c.cost_usd > 0 OR c.input_tokens > 0 OR c.output_tokens > 0) AS billed,
             count(*) FILTER (WHERE c.status = 'error') AS failed,
             count(*) FILTER (WHERE c.status = 'cached') AS cached,
             count(*) FILTER (WHERE c.status = 'interrupted') AS interrupted,
             count(*) FILTER (WHERE c.status = 'started') AS in_flight,
             coalesce(sum(c.input_tokens), 0) AS input,
             coalesce(sum(c.output_tokens), 0) AS output,
             coalesce(sum(c.cached_input_tokens), 0) AS cached_input,
             coalesce(sum(c.cost_usd), 0)::text AS cost
        FROM llm_calls c
        LEFT JOIN sessions s ON s.id = c.session_id
       WHERE c.created_at >= $1 AND c.created_at < $2
       GROUP BY ROLLUP (${KEY_SQL[groupBy]})
       ORDER BY 1 NULLS LAST`;
    try {
      const { rows } = await this.db.pool.query<Row>(sql, [from, to]);
      // ROLLUP adds the grand total as the last row, its key NULL (group keys are never NULL).
      const last = rows[rows.length - 1];
      const total = last?.key === null ? last : undefined;
      const groups = rows.filter((r) => r !== total).map((r) => ({ key: r.key as string, ...toTotals(r) }));
      return { from: from.toISOString(), to: to.toISOString(), groupBy, totals: toTotals(total ?? EMPTY), groups };
    } catch (e) {
      throw mapDatabaseError(e);
    }
  }

  /** Spend per agent since the start of the UTC day and of the UTC month (what budgets compare against). */
  async spendByAgent(now = new Date()): Promise<Map<string, { day: number; month: number }>> {
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    try {
      const { rows } = await this.db.pool.query<{ agent: string; day: string; month: string }>(
        `SELECT s.agent_id AS agent,
                coalesce(sum(c.cost_usd) FILTER (WHERE c.created_at >= $1), 0)::text AS day,
                coalesce(sum(c.cost_usd), 0)::text AS month
           FROM llm_calls c JOIN sessions s ON s.id = c.session_id
          WHERE c.created_at >= $2
          GROUP BY s.agent_id`,
        [day, month],
      );
      return new Map(rows.map((r) => [r.agent, { day: Number(r.day), month: Number(r.month) }]));
    } catch (e) {
      throw mapDatabaseError(e);
    }
  }
}
