import { countChatTokens, countTokens, NestclawError } from '@nestclaw/common';
import { currentAgent, recordModelRun } from '@nestclaw/observability';
import { ChatRequest, ChatResponse, Usage } from '../model-provider.port';
import { costOf } from '../pricing';
import { ProviderAttemptError } from '../provider.errors';
import type { RegisteredModel } from '../provider.registry';
import type { LlmCallRecord } from '../llm-call.record';
import { Attempt, Target } from './attempt';
import type { AttemptAdmission } from './attempt-admission';
import { decideRetry, MIN_USEFUL_ATTEMPT_MS, RetrySettings } from './retry-policy';
import { TimeoutBudget } from './timeout-budget';

export interface RunSettings {
  retry: RetrySettings;
  /** Cap on one model's share of the budget (`providers.attempt_timeout`). */
  attemptTimeoutMs?: number;
  random: () => number;
}

export type Decision = { action: 'stop'; error: NestclawError } | { action: 'retry'; delayMs: number } | { action: 'next_model' };

/** Tokens a request may use, counted before usage is known: keeps a rate-limit window honest. */
export const estimateTokens = (request: ChatRequest) => countChatTokens(request.messages, request.tools) + (request.maxTokens ?? 0);

/** Output assumed for a budget hold when neither the request nor the model sets max_tokens (Anthropic's default). */
const DEFAULT_OUTPUT_TOKENS = 4096;

/**
 * The state of one request walking the chain: which models were tried or skipped (breaker open,
 * near a rate limit), the shared budget, and every attempt's record. ReliableProvider drives it.
 */
export class ChainRun {
  readonly calls: LlmCallRecord[] = [];
  readonly tokens: number;
  private readonly inputTokens: number;
  private seq = 0;
  private readonly tried = new Set<string>();
  private readonly failures = new Map<string, NestclawError>();
  private readonly skipped = new Map<string, string>();
  private current?: Attempt;
  /** The agent whose turn this request serves (its spend budget), read once. */
  private readonly agent = currentAgent();

  constructor(
    readonly chain: RegisteredModel[],
    readonly budget: TimeoutBudget,
    private readonly settings: RunSettings,
    private readonly deps: AttemptAdmission,
    private readonly request: ChatRequest,
  ) {
    this.inputTokens = countChatTokens(request.messages, request.tools);
    this.tokens = this.inputTokens + (request.maxTokens ?? 0);
  }

  /** Why a model cannot take this request now, and from when it could; undefined = it can. */
  private blocked(m: RegisteredModel): { why: string; until?: number } | undefined {
    return this.deps.blocked(m, this.tokens);
  }

  /**
   * The next model: the first untried one in chain order that can take the request now, so a
   * closed breaker later in the chain goes before an open one. When none can, waits for the
   * earliest that will (a breaker's probe, a rate-limit window) if that fits in the budget and is
   * no longer than one backoff may be (`retry.max_delay`): never a long silent hang.
   */
  async next(): Promise<Target | undefined> {
    for (;;) {
      if (this.budget.signal.aborted) return undefined;
      let wakeAt: number | undefined;
      const untried = this.chain.map((model, index) => ({ model, index })).filter(({ model }) => !this.tried.has(model.name));
      for (const [i, { model, index }] of untried.entries()) {
        const b = this.blocked(model);
        if (b) {
          this.skipped.set(model.name, b.why);
          if (b.until !== undefined) wakeAt = Math.min(wakeAt ?? Infinity, b.until);
          continue;
        }
        this.tried.add(model.name);
        this.skipped.delete(model.name);
        const laterReady = untried.slice(i + 1).filter((u) => !this.blocked(u.model)).length;
        return { model, index, shareEnd: this.shareEnd(laterReady), failedAttempts: 0 };
      }
      if (wakeAt === undefined) return undefined;
      const waitMs = wakeAt - this.deps.clock.now();
      if (waitMs > this.settings.retry.maxDelayMs || waitMs + MIN_USEFUL_ATTEMPT_MS > this.budget.remaining()) return undefined;
      await this.budget.sleep(waitMs);
    }
  }

  /** A model's share: the rest of the budget split evenly with the models still ready after it. */
  private shareEnd(laterReady: number): number | undefined {
    if (laterReady === 0) return undefined;
    const remaining = this.budget.remaining();
    const share = Math.min(this.settings.attemptTimeoutMs ?? Infinity, remaining / (laterReady + 1));
    return performance.now() + share;
  }

  private timeLeft(t: Target): number {
    const budget = this.budget.remaining();
    return t.shareEnd === undefined ? budget : Math.min(budget, t.shareEnd - performance.now());
  }

  /** Starts an attempt on `t`, or undefined when its breaker refuses or its share is used up. */
  start(t: Target): Attempt | undefined {
    if (this.timeLeft(t) < 1) return undefined;
    // Refuses (budget_exceeded) before anything is taken when the agent's budget is spent, calls in flight included.
    const spend = this.deps.spend.hold(this.agent, this.worstCost(t));
    const permit = this.deps.breakers.for(t.model.name).acquire();
    if (!permit) {
      spend.release();
      this.skipped.set(t.model.name, 'circuit open');
      return undefined;
    }
    const slice = t.shareEnd === undefined ? undefined : t.shareEnd - performance.now();
    const reservation = this.deps.limits.reserve(t.model.name, this.tokens);
    this.current = new Attempt(t, ++this.seq, this.budget.attempt(slice), permit, reservation, spend, this.deps.spend, this.agent);
    return this.current;
  }

  /** The most an attempt on `t` can cost: every input token plus the whole output allowance. */
  private worstCost(t: Target): number {
    const outputTokens = this.request.maxTokens ?? t.model.config.max_tokens ?? DEFAULT_OUTPUT_TOKENS;
    return costOf({ inputTokens: this.inputTokens, outputTokens, cachedInputTokens: 0 }, t.model.price);
  }

  succeeded(a: Attempt, response: ChatResponse): void {
    a.settle('succeeded');
    this.deps.limits.settle(a.reservation, response.usage.inputTokens + response.usage.outputTokens, response.rateLimit);
    this.calls.push(a.record('ok', response.usage));
  }

  /** Records a failed attempt and decides: stop, retry this model after a delay, or move on. */
  failed(a: Attempt, e: unknown): Decision {
    const t = a.target;
    const name = t.model.name;
    if (this.budget.cancelled) {
      a.settle('neutral');
      this.calls.push(a.record('cancelled', undefined, 'cancelled'));
      return { action: 'stop', error: new NestclawError('cancelled', 'The request was cancelled') };
    }
    if (this.budget.expired) {
      a.settle('failed');
      this.calls.push(a.record('error', undefined, 'timeout_budget_exhausted'));
      return { action: 'stop', error: this.budgetError() };
    }
    if (a.deadline.timedOut) {
      a.settle('failed');
      this.calls.push(a.record('error', undefined, 'timeout'));
      this.failures.set(name, new NestclawError('provider_error', `${name} did not answer within its share of the budget`));
      return { action: 'next_model' };
    }
    const err =
      e instanceof ProviderAttemptError ? e : new ProviderAttemptError('retryable', undefined, (e as Error)?.message ?? String(e));
    const code = err.status ? `http_${err.status}` : 'network';
    switch (err.failure) {
      case 'cancelled':
        // Aborted without the caller or the budget asking: treat as a dropped connection.
        a.settle('failed');
        this.calls.push(a.record('error', undefined, 'network'));
        this.failures.set(name, new NestclawError('provider_error', `${name} failed: ${err.message}`));
        return { action: 'next_model' };
      case 'auth':
        a.settle('failed');
        this.deps.breakers.for(name).lastAuthFailure = { at: this.deps.clock.now(), status: err.status, message: err.message };
        this.calls.push(a.record('error', undefined, code));
        this.failures.set(name, new NestclawError('provider_auth_failed', `Bad or expired key for ${name}: ${err.message}`));
        return { action: 'next_model' };
      case 'bad_request':
        a.settle('neutral');
        this.calls.push(a.record('error', undefined, code));
        return { action: 'stop', error: new NestclawError('provider_error', `${name} rejected the request: ${err.message}`) };
      case 'context_length':
        a.settle('neutral');
        this.calls.push(a.record('error', undefined, 'context_length_exceeded'));
        return {
          action: 'stop',
          error: new NestclawError('context_length_exceeded', `The conversation is too long for ${name}: ${err.message}`),
        };
      case 'retryable': {
        a.settle('failed');
        if (err.status === 429) this.deps.limits.throttled(name, err.retryAfterMs, err.rateLimit);
        this.calls.push(a.record('error', undefined, code));
        this.failures.set(name, new NestclawError('provider_error', `${name} failed: ${err.message}`));
        t.failedAttempts++;
        const d = decideRetry({
          failedAttempts: t.failedAttempts,
          retryAfterMs: err.retryAfterMs,
          timeLeftMs: this.timeLeft(t),
          settings: this.settings.retry,
          random: this.settings.random,
        });
        return d.kind === 'retry' ? { action: 'retry', delayMs: d.delayMs } : { action: 'next_model' };
      }
    }
  }

  /**
   * A stream that broke after showing output: never replayed elsewhere. The provider billed what
   * it produced, so the record carries an estimate (≈4 characters a token) rather than zero.
   */
  interrupted(a: Attempt, e: unknown, partialText: string): NestclawError {
    const decision = this.failed(a, e);
    const stop = decision.action === 'stop';
    const i = this.calls.length - 1;
    const usage: Usage = { inputTokens: this.tokens, outputTokens: countTokens(partialText), cachedInputTokens: 0 };
    this.calls[i] = {
      ...this.calls[i],
      usage,
      costUsd: costOf(usage, a.target.model.price),
      ...(stop ? {} : { errorCode: 'stream_interrupted' }),
    };
    if (stop) return decision.error;
    return new NestclawError('stream_interrupted', `The reply from ${a.target.model.name} broke off after partial output: ${errorText(e)}`);
  }

  private budgetError(): NestclawError {
    return new NestclawError('timeout_budget_exhausted', `No model answered within the ${this.budget.budgetMs} ms timeout budget`);
  }

  /** The error once no model is left. */
  exhausted(): NestclawError {
    if (this.budget.cancelled) return new NestclawError('cancelled', 'The request was cancelled');
    if (this.budget.expired || this.budget.remaining() < 1) return this.budgetError();
    const failed = [...this.failures.values()];
    const skipped = [...this.skipped.entries()].map(([n, why]) => `${n} (${why})`);
    if (failed.length === 0) {
      const allLimited = [...this.skipped.values()].every((why) => why === 'at its rate limit');
      return new NestclawError(
        allLimited && skipped.length ? 'rate_limited' : 'provider_error',
        `No model could take the request: ${skipped.join(', ') || 'none configured'}`,
      );
    }
    if (failed.length === 1 && skipped.length === 0) return failed[0];
    const code = failed.every((f) => f.code === 'provider_auth_failed') ? 'provider_auth_failed' : 'provider_error';
    const parts = [...failed.map((f) => f.message), ...(skipped.length ? [`skipped: ${skipped.join(', ')}`] : [])];
    return new NestclawError(code, `Every model failed. ${parts.join('; ')}`);
  }

  dispose(): void {
    // An attempt abandoned by the consumer (a stream nobody reads) must not hold a half-open probe.
    this.current?.settle('neutral');
    recordModelRun({ calls: this.calls, skipped: this.skipped, budgetExhausted: this.budget.expired });
    this.budget.dispose();
  }
}

const errorText = (e: unknown) => (e as Error)?.message ?? String(e);
