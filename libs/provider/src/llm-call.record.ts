import type { Usage } from './model-provider.port';

/** One attempt on one model; the agent writes these to `llm_calls` with the turn. */
export interface LlmCallRecord {
  /** Config name of the model (e.g. "deepseek-v3"). */
  modelName: string;
  provider: string;
  model: string;
  /** 1, 2, 3… across every model tried for one request. */
  attempt: number;
  isFallback: boolean;
  usage: Usage;
  costUsd: number;
  latencyMs: number;
  /** `cached`: answered from the idempotency store, not billed again (zero tokens, zero cost). */
  status: 'ok' | 'error' | 'cancelled' | 'cached';
  /** http_<status>, network, timeout, timeout_budget_exhausted, cancelled, context_length_exceeded, stream_interrupted. */
  errorCode?: string;
}
