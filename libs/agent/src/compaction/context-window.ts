import type { AgentConfig, NestclawConfig } from '@nestclaw/config';

/** What a model accepts when its config does not say (the common size of current chat models). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export interface ContextBudget {
  /** The model's window in tokens. */
  window: number;
  /** Compact when a request would exceed this. */
  budget: number;
  /** Recent turns kept verbatim within this. */
  keepRecent: number;
  /** Summaries above this are merged (stage 2). */
  summaries: number;
  /** Largest summariser input per request. */
  maxPart: number;
  /** Longest summary asked for. */
  maxSummary: number;
}

/** The smallest window on the agent's chain decides: a fallback model must accept the same request. */
export function contextBudget(config: NestclawConfig, agent: AgentConfig): ContextBudget {
  const names = [agent.model ?? config.providers.primary, ...(agent.fallback ?? config.providers.fallback)].filter(
    (n): n is string => !!n && !!config.models[n],
  );
  const windows = names.map((n) => config.models[n].context_window ?? DEFAULT_CONTEXT_WINDOW);
  const window = windows.length ? Math.min(...windows) : DEFAULT_CONTEXT_WINDOW;
  const budget = Math.floor(window * agent.compaction.share);
  return {
    window,
    budget,
    keepRecent: Math.floor(budget * agent.compaction.keep_recent_share),
    summaries: Math.floor(budget * 0.25),
    maxPart: Math.max(200, Math.floor(window * 0.5)),
    maxSummary: Math.max(64, Math.min(2_000, Math.floor(window * 0.08))),
  };
}
