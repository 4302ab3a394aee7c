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

/** An attempt's ledger row, written but not yet committed. */
export interface OpenCall {
  readonly id: string;
  /**
   * Writes COMMIT to the database connection before it returns, so the request can be written to
   * its socket in the same tick; resolves when the database acknowledges it.
   */
  commit(): Promise<void>;
  /** The request never left: the row goes. */
  discard(): Promise<void>;
}

/**
 * Where the caller records each attempt (status `started`), so a request in flight when the
 * process dies still shows in the ledger and a request that never left does not. The transport
 * opens the row once the request is ready and its connection is up, then commits it and writes the
 * request in one tick: a kill leaves both or neither (docs/architecture.md, "The call ledger").
 * The finished record carries the row id back as `ledgerId` for the caller to complete.
 */
export interface CallLedger {
  open(attempt: AttemptStart): Promise<OpenCall>;
}

/** What a transport calls when the request is ready to be written (see CallLedger). */
export type CallGate = () => Promise<OpenCall>;
