import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { recordModelAttempt } from '@nestclaw/observability';
import { ConfigService } from '@nestclaw/config';
import { mapDatabaseError } from '@nestclaw/db';
import type { CallGate, CallLedger, LlmCallRecord } from './llm-call.record';
import { Attempt, Target } from './reliability/attempt';
import { ChatRequest, ChatResponse, ChatStreamEvent, emptyUsage } from './model-provider.port';
import { ProviderAttemptError, providerNotConfigured } from './provider.errors';
import { ProviderRegistry, RegisteredModel } from './provider.registry';
import { ChainRun } from './reliability/chain-run';
import { AttemptAdmission } from './reliability/attempt-admission';
import { idempotencyKey, requestDigest } from './reliability/idempotency.key';
import { IdempotencyStore } from './reliability/idempotency.store';
import { TimeoutBudget } from './reliability/timeout-budget';

export type { LlmCallRecord } from './llm-call.record';

export interface RouteOptions {
  /** The agent's own model (else `providers.primary`). */
  primary?: string;
  /** The agent's own fallback list (else `providers.fallback`). */
  fallback?: string[];
  signal?: AbortSignal;
  /** Records each attempt as its request is sent (the agent's `llm_calls` rows). */
  ledger?: CallLedger;
}

export interface ReliableResult {
  response: ChatResponse;
  calls: LlmCallRecord[];
}

export type ReliableStreamEvent =
  Exclude<ChatStreamEvent, { type: 'done' }> | { type: 'done'; response: ChatResponse; calls: LlmCallRecord[] };

/** A chain failure that still carries the attempts made, so they are billed and recorded. */
/** Starts an attempt; a budget refusal stops the chain with the attempts made so far (they were billed). */
function startAttempt(run: ChainRun, target: Target): Attempt | undefined {
  try {
    return run.start(target);
  } catch (e) {
    if (e instanceof NestclawError) throw new ProviderChainError(e, run.calls);
    throw e;
  }
}

export class ProviderChainError extends NestclawError {
  constructor(
    error: NestclawError,
    readonly calls: LlmCallRecord[],
    /** Text already streamed to the client before the failure. */
    readonly partialText = '',
  ) {
    super(error.code, error.message, error.details);
  }
}

/**
 * The only way the agent reaches a model, and the only layer that retries: walks the ordered chain
 * (primary, then fallbacks) under one deadline shared by every attempt, skipping models whose
 * breaker is open or that are at their rate limit, and replays stored answers for repeated
 * non-streaming requests. Per-request state lives in ChainRun; this class only orchestrates.
 */
@Injectable()
export class ReliableProvider {
  /** Jitter source (tests pin it). */
  random: () => number = Math.random;

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly config: ConfigService,
    private readonly admission: AttemptAdmission,
    private readonly answers: IdempotencyStore,
  ) {}

  /** The ordered, de-duplicated list of usable chat models for a request. */
  chain(options: RouteOptions = {}): RegisteredModel[] {
    const { providers } = this.config.get();
    const names = [options.primary ?? providers.primary, ...(options.fallback ?? providers.fallback)];
    const seen = new Set<string>();
    const out: RegisteredModel[] = [];
    for (const name of names) {
      const m = name ? this.registry.get(name) : undefined;
      if (m && !seen.has(m.name)) {
        seen.add(m.name);
        out.push(m);
      }
    }
    return out;
  }

  isConfigured(options: RouteOptions = {}): boolean {
    return this.chain(options).length > 0;
  }

  private begin(request: ChatRequest, options: RouteOptions): ChainRun {
    const chain = this.chain(options);
    if (chain.length === 0) throw new ProviderChainError(providerNotConfigured(), []);
    const { providers } = this.config.get();
    const budget = new TimeoutBudget(providers.timeout_budget, options.signal ?? request.signal);
    const settings = {
      retry: { maxAttempts: providers.retry.max_attempts, baseDelayMs: providers.retry.base_delay, maxDelayMs: providers.retry.max_delay },
      attemptTimeoutMs: providers.attempt_timeout,
      random: this.random,
    };
    return new ChainRun(chain, budget, settings, this.admission, request);
  }

  async chat(request: ChatRequest, options: RouteOptions = {}): Promise<ReliableResult> {
    const run = this.begin(request, options);
    try {
      const ttl = this.config.get().providers.idempotency_ttl;
      const digest = ttl > 0 ? requestDigest(request) : '';
      const keys = ttl > 0 ? run.chain.map((m) => idempotencyKey(m, request, digest)) : [];
      const replayed = ttl > 0 ? await this.replay(run, keys) : undefined;
      if (replayed) return replayed;
      for (let target = await run.next(); target; target = await run.next()) {
        for (let attempt = startAttempt(run, target); attempt; attempt = startAttempt(run, target)) {
          const gate = this.gate(attempt, options);
          try {
            const response = await target.model.provider.chat({ ...request, signal: attempt.signal, gate });
            await this.recorded(run, attempt);
            run.succeeded(attempt, response);
            if (ttl > 0) this.answers.remember({ key: keys[target.index], modelName: target.model.name, response }, ttl);
            return { response, calls: run.calls };
          } catch (e) {
            await this.recorded(run, attempt);
            const decision = run.failed(attempt, e);
            if (decision.action === 'stop') throw new ProviderChainError(decision.error, run.calls);
            if (decision.action === 'next_model') break;
            await run.budget.sleep(decision.delayMs);
          }
        }
      }
      throw new ProviderChainError(run.exhausted(), run.calls);
    } finally {
      run.dispose();
    }
  }

  /**
   * The attempt's ledger row, opened by the transport once the request is ready and its connection
   * is up, and committed in the same tick as the request is written (CallLedger): no row, no request.
   */
  private gate(attempt: Attempt, options: RouteOptions): CallGate | undefined {
    const { ledger } = options;
    if (!ledger) return undefined;
    return async () => {
      const call = await ledger.open(attempt.describe()).catch((e: unknown) => {
        attempt.ledgerFailure = e;
        throw e;
      });
      attempt.ledgerId = call.id;
      return {
        id: call.id,
        discard: () => {
          // The request never left: its record is added when the turn closes, like any attempt without a row.
          attempt.ledgerId = undefined;
          return call.discard();
        },
        commit: () => {
          const committed = call.commit().catch((e: unknown) => {
            attempt.ledgerFailure = e;
            throw e;
          });
          attempt.committed = committed.catch(() => undefined);
          return committed;
        },
      };
    };
  }

  /**
   * Waits for the row's COMMIT to be acknowledged, so the turn's closing statement finds the row. A
   * row that could not be written stops the chain (every attempt would fail the same way), breaker
   * untouched. (An attempt without a row, e.g. from an adapter that ignores the gate, is inserted by
   * the closing statement instead.)
   */
  private async recorded(run: ChainRun, attempt: Attempt): Promise<void> {
    await attempt.committed;
    const e = attempt.ledgerFailure;
    if (e === undefined) return;
    attempt.settle('neutral');
    // An unreachable or full database is a 503 the client may retry, not an internal error.
    const mapped = mapDatabaseError(e);
    const error = mapped instanceof NestclawError ? mapped : new NestclawError('internal', `Could not record the model call: ${String(e)}`);
    throw new ProviderChainError(error, run.calls);
  }

  /** A stored answer for this very request: returned as a zero-cost `cached` call, never billed twice. */
  private async replay(run: ChainRun, keys: string[]): Promise<ReliableResult | undefined> {
    const started = performance.now();
    const hit = await this.answers.find(keys);
    if (!hit) return undefined;
    const index = Math.max(
      0,
      run.chain.findIndex((m) => m.name === hit.modelName),
    );
    const model = run.chain[index];
    const call: LlmCallRecord = {
      modelName: model.name,
      provider: model.provider.kind,
      model: model.provider.model,
      attempt: 1,
      isFallback: index > 0,
      usage: emptyUsage(),
      costUsd: 0,
      latencyMs: Math.round(performance.now() - started),
      status: 'cached',
    };
    recordModelAttempt(call, { startedAt: started });
    return { response: hit.response, calls: [call] };
  }

  async *chatStream(request: ChatRequest, options: RouteOptions = {}): AsyncIterable<ReliableStreamEvent> {
    const run = this.begin(request, options);
    try {
      for (let target = await run.next(); target; target = await run.next()) {
        for (let attempt = startAttempt(run, target); attempt; attempt = startAttempt(run, target)) {
          const gate = this.gate(attempt, options);
          let visible = '';
          try {
            for await (const event of target.model.provider.chatStream({ ...request, signal: attempt.signal, gate })) {
              attempt.firstOutput();
              if (event.type === 'done') {
                // SDKs end an aborted stream quietly: a cut-short reply must not pass as complete.
                if (attempt.signal.aborted) throw new ProviderAttemptError('cancelled', undefined, 'request aborted');
                await this.recorded(run, attempt);
                run.succeeded(attempt, event.response);
                yield { type: 'done', response: event.response, calls: run.calls };
                return;
              }
              if (event.type === 'text') visible += event.text;
              yield event;
            }
            throw new ProviderAttemptError('retryable', undefined, 'stream ended without a final event');
          } catch (e) {
            await this.recorded(run, attempt);
            // After visible output we never replay silently on another model: the client saw it.
            if (visible) throw new ProviderChainError(run.interrupted(attempt, e, visible), run.calls, visible);
            const decision = run.failed(attempt, e);
            if (decision.action === 'stop') throw new ProviderChainError(decision.error, run.calls);
            if (decision.action === 'next_model') break;
            await run.budget.sleep(decision.delayMs);
          }
        }
      }
      throw new ProviderChainError(run.exhausted(), run.calls);
    } finally {
      run.dispose();
    }
  }
}
