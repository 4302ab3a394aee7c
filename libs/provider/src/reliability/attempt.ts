import { recordModelAttempt } from '@nestclaw/observability';
import type { SpendBudget, SpendHold } from '../budget/spend-budget';
import { emptyUsage, Usage } from '../model-provider.port';
import { costOf } from '../pricing';
import type { AttemptStart, LlmCallRecord } from '../llm-call.record';
import type { RegisteredModel } from '../provider.registry';
import type { BreakerPermit } from './model-breaker';
import type { Reservation } from './rate-limit.tracker';
import type { AttemptDeadline } from './timeout-budget';

/** A model picked for this request, with the part of the budget it may use. */
export interface Target {
  model: RegisteredModel;
  /** Position in the chain: > 0 means fallback. */
  index: number;
  /** performance.now() time this model's share ends; undefined = the rest of the budget. */
  shareEnd: number | undefined;
  failedAttempts: number;
}

/** One attempt in flight: its signal, breaker permit and rate-limit reservation. */
export class Attempt {
  private settled = false;
  readonly started = performance.now();
  /** The ledger row committed as the request left (see CallLedger). */
  ledgerId?: string;
  /** Settles when the row's COMMIT is acknowledged (or failed). */
  committed?: Promise<void>;
  /** Why the row could not be written or committed (the chain stops on it). */
  ledgerFailure?: unknown;
  /** performance.now() of the first streamed chunk (time to first chunk). */
  private firstChunkAt?: number;

  constructor(
    readonly target: Target,
    readonly seq: number,
    readonly deadline: AttemptDeadline,
    private readonly permit: BreakerPermit,
    readonly reservation: Reservation,
    private readonly spend: SpendHold,
    private readonly budget: SpendBudget,
    /** The agent whose budget pays for it. */
    private readonly agent: string | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.deadline.signal;
  }

  /** A streamed chunk arrived: lifts the share cut (the stream has started) and notes the first one. */
  firstOutput(): void {
    this.firstChunkAt ??= performance.now();
    this.deadline.firstOutput();
  }

  settle(outcome: 'succeeded' | 'failed' | 'neutral'): void {
    if (this.settled) return;
    this.settled = true;
    // Settling is followed in the same tick by record(), which adds the real cost to the agent's spend.
    this.spend.release();
    this.deadline.dispose();
    this.permit[outcome]();
  }

  record(status: LlmCallRecord['status'], usage: Usage = emptyUsage(), errorCode?: string): LlmCallRecord {
    const { model, index } = this.target;
    const call: LlmCallRecord = {
      modelName: model.name,
      provider: model.provider.kind,
      model: model.provider.model,
      attempt: this.seq,
      isFallback: index > 0,
      usage,
      costUsd: costOf(usage, model.price),
      latencyMs: Math.round(performance.now() - this.started),
      status,
      ...(errorCode ? { errorCode } : {}),
      ...(this.ledgerId ? { ledgerId: this.ledgerId } : {}),
    };
    recordModelAttempt(call, { startedAt: this.started, firstChunkAt: this.firstChunkAt });
    this.budget.add(this.agent, call.costUsd);
    return call;
  }

  describe(): AttemptStart {
    const { model, index } = this.target;
    return { modelName: model.name, provider: model.provider.kind, model: model.provider.model, attempt: this.seq, isFallback: index > 0 };
  }
}
