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
  /** The `llm_calls` row written when the attempt started (absent for replays, which make no request). */
  ledgerId?: string;
}

/** What is known about an attempt before its request leaves. */
export type AttemptStart = Pick<LlmCallRecord, 'modelName' | 'provider' | 'model' | 'attempt' | 'isFallback'>;

/**
 * Where the caller records an attempt before its request is sent (status `started`), so a request in
 * flight when the process dies still shows in the ledger. Returns the row id; the finished record
 * carries it back as `ledgerId` for the caller to complete.
 */
export interface CallLedger {
  started(attempt: AttemptStart): Promise<string>;
}
