import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { ChatRequest, ChatResponse, ChatStreamEvent, emptyUsage, Usage } from './model-provider.port';
import { ProviderAttemptError, providerNotConfigured } from './provider.errors';
import { ProviderRegistry, RegisteredModel } from './provider.registry';
import { costOf } from './pricing';

/** One attempt on one model; the agent writes these to `llm_calls` with the turn. */
export interface LlmCallRecord {
  /** Config name of the model (e.g. "deepseek-v3"). */
  modelName: string;
  provider: string;
  model: string;
  attempt: number;
  isFallback: boolean;
  usage: Usage;
  costUsd: number;
  latencyMs: number;
  status: 'ok' | 'error' | 'cancelled';
  errorCode?: string;
}

export interface RouteOptions {
  /** The agent's own model (else `providers.primary`). */
  primary?: string;
  fallback?: string[];
  signal?: AbortSignal;
}

export interface ReliableResult {
  response: ChatResponse;
  calls: LlmCallRecord[];
}

export type ReliableStreamEvent =
  Exclude<ChatStreamEvent, { type: 'done' }> | { type: 'done'; response: ChatResponse; calls: LlmCallRecord[] };

/** A chain failure that still carries the attempts made, so they are billed and recorded. */
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
 * The only way the agent reaches a model: walks the ordered chain (primary, then fallbacks) under
 * one deadline shared by every attempt.
 */
@Injectable()
export class ReliableProvider {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly config: ConfigService,
  ) {}

  /** The ordered, de-duplicated list of usable models for a request. */
  chain(options: RouteOptions = {}): RegisteredModel[] {
    const { providers } = this.config.get();
    const names = [options.primary ?? providers.primary, ...(options.fallback ?? providers.fallback)].filter((n): n is string => !!n);
    const seen = new Set<string>();
    const out: RegisteredModel[] = [];
    for (const name of names) {
      const m = this.registry.get(name);
      if (m && !seen.has(name)) {
        seen.add(name);
        out.push(m);
      }
    }
    return out;
  }

  isConfigured(options: RouteOptions = {}): boolean {
    return this.chain(options).length > 0;
  }

  async chat(request: ChatRequest, options: RouteOptions = {}): Promise<ReliableResult> {
    const calls: LlmCallRecord[] = [];
    let lastError: NestclawError | undefined;
    for (const attempt of this.attempts(options)) {
      const started = performance.now();
      const signal = attempt.signal();
      try {
        const response = await attempt.model.provider.chat({ ...request, signal });
        calls.push(attempt.record(started, 'ok', response.usage));
        return { response, calls };
      } catch (e) {
        const outcome = attempt.fail(e, started, calls);
        if (outcome.stop) throw new ProviderChainError(outcome.error, calls);
        lastError = outcome.error;
      }
    }
    throw new ProviderChainError(lastError ?? providerNotConfigured(), calls);
  }

  async *chatStream(request: ChatRequest, options: RouteOptions = {}): AsyncIterable<ReliableStreamEvent> {
    const calls: LlmCallRecord[] = [];
    let lastError: NestclawError | undefined;
    for (const attempt of this.attempts(options)) {
      const started = performance.now();
      const signal = attempt.signal();
      let visible = '';
      try {
        for await (const event of attempt.model.provider.chatStream({ ...request, signal })) {
          if (event.type === 'done') {
            calls.push(attempt.record(started, 'ok', event.response.usage));
            yield { type: 'done', response: event.response, calls };
            return;
          }
          if (event.type === 'text') visible += event.text;
          yield event;
        }
        throw new ProviderAttemptError('retryable', undefined, 'stream ended without a final event');
      } catch (e) {
        const outcome = attempt.fail(e, started, calls);
        // After visible output we never replay silently on another model: the client saw it.
        if (visible && !outcome.stop) {
          throw new ProviderChainError(
            new NestclawError('stream_interrupted', `The model stream broke after partial output: ${outcome.error.message}`),
            calls,
            visible,
          );
        }
        if (outcome.stop) throw new ProviderChainError(outcome.error, calls, visible);
        lastError = outcome.error;
      }
    }
    throw new ProviderChainError(lastError ?? providerNotConfigured(), calls);
  }

  private *attempts(options: RouteOptions) {
    const chain = this.chain(options);
    if (chain.length === 0) throw providerNotConfigured();
    const budgetMs = this.config.get().providers.timeout_budget;
    const deadline = performance.now() + budgetMs;
    for (const [index, model] of chain.entries()) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new NestclawError('timeout_budget_exhausted', `No model answered within the ${budgetMs} ms timeout budget`);
      const budgetSignal = AbortSignal.timeout(Math.max(1, Math.floor(remaining)));
      yield {
        model,
        signal: () => (options.signal ? AbortSignal.any([options.signal, budgetSignal]) : budgetSignal),
        record: (started: number, status: LlmCallRecord['status'], usage: Usage = emptyUsage(), errorCode?: string): LlmCallRecord => ({
          modelName: model.name,
          provider: model.provider.kind,
          model: model.provider.model,
          attempt: index + 1,
          isFallback: index > 0,
          usage,
          costUsd: costOf(usage, model.price),
          latencyMs: Math.round(performance.now() - started),
          status,
          errorCode,
        }),
        /** Records the failed attempt and decides: stop the chain, or try the next model. */
        fail: (e: unknown, started: number, calls: LlmCallRecord[]): { stop: boolean; error: NestclawError } => {
          const record = (status: LlmCallRecord['status'], code: string) => calls.push(this.recordOf(model, index, started, status, code));
          if (options.signal?.aborted) {
            record('cancelled', 'cancelled');
            return { stop: true, error: new NestclawError('cancelled', 'The request was cancelled') };
          }
          if (budgetSignal.aborted) {
            record('error', 'timeout');
            return {
              stop: true,
              error: new NestclawError('timeout_budget_exhausted', `No model answered within the ${budgetMs} ms timeout budget`),
            };
          }
          const err =
            e instanceof ProviderAttemptError ? e : new ProviderAttemptError('retryable', undefined, (e as Error)?.message ?? String(e));
          switch (err.failure) {
            case 'cancelled':
              record('cancelled', 'cancelled');
              return { stop: true, error: new NestclawError('cancelled', 'The request was cancelled') };
            case 'auth':
              record('error', `http_${err.status}`);
              return {
                stop: false,
                error: new NestclawError('provider_auth_failed', `Bad or expired key for ${model.name}: ${err.message}`),
              };
            case 'bad_request':
              record('error', `http_${err.status}`);
              return { stop: true, error: new NestclawError('provider_error', `${model.name} rejected the request: ${err.message}`) };
            case 'context_length':
              record('error', 'context_length_exceeded');
              return {
                stop: true,
                error: new NestclawError('context_length_exceeded', `The conversation is too long for ${model.name}: ${err.message}`),
              };
            case 'retryable':
              record('error', err.status ? `http_${err.status}` : 'network');
              return { stop: false, error: new NestclawError('provider_error', `${model.name} failed: ${err.message}`) };
          }
        },
      };
    }
  }

  private recordOf(
    model: RegisteredModel,
    index: number,
    started: number,
    status: LlmCallRecord['status'],
    errorCode: string,
  ): LlmCallRecord {
    return {
      modelName: model.name,
      provider: model.provider.kind,
      model: model.provider.model,
      attempt: index + 1,
      isFallback: index > 0,
      usage: emptyUsage(),
      costUsd: 0,
      latencyMs: Math.round(performance.now() - started),
      status,
      errorCode,
    };
  }
}
