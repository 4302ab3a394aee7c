/** `GET /v1/usage`'s answer (libs/provider's UsageReport), as the Usage page reads it. */
export interface UsageTotals {
  calls: number;
  billedCalls: number;
  failedCalls: number;
  cachedCalls: number;
  interruptedCalls: number;
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
  groupBy: string;
  totals: UsageTotals;
  groups: UsageGroup[];
}

/** The groupings the page offers (the API has more: month, agent_day, …). */
export const PAGE_GROUPS = ['day', 'model', 'agent', 'session'] as const;
export type PageGroup = (typeof PAGE_GROUPS)[number];

export type UsageMetric = 'cost' | 'tokens';
export const metricOf = (g: UsageTotals, metric: UsageMetric) => (metric === 'cost' ? g.costUsd : g.inputTokens + g.outputTokens);
