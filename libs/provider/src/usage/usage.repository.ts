import { Injectable } from '@nestjs/common';
import { asDatabaseError, DatabaseService } from '@nestclaw/db';

export type UsageGroupBy = 'day' | 'month' | 'model' | 'session';

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
const KEY_SQL: Record<UsageGroupBy, string> = {
  day: `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  month: `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM')`,
  model: `provider || '/' || model`,
  session: `coalesce(session_id, '(none)')`,
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
             count(*) FILTER (WHERE cost_usd > 0 OR input_tokens > 0 OR output_tokens > 0) AS billed,
             count(*) FILTER (WHERE status = 'error') AS failed,
             count(*) FILTER (WHERE status = 'cached') AS cached,
             count(*) FILTER (WHERE status = 'interrupted') AS interrupted,
             count(*) FILTER (WHERE status = 'started') AS in_flight,
             coalesce(sum(input_tokens), 0) AS input,
             coalesce(sum(output_tokens), 0) AS output,
             coalesce(sum(cached_input_tokens), 0) AS cached_input,
             coalesce(sum(cost_usd), 0)::text AS cost
        FROM llm_calls
       WHERE created_at >= $1 AND created_at < $2
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
      throw asDatabaseError(e);
    }
  }
}
