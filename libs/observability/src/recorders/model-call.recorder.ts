import { SpanStatusCode } from '@opentelemetry/api';
import { ATTR, SPAN } from '../telemetry.names';
import { telemetry } from '../telemetry.state';
import { tracer } from '../tracing/tracer';
import { label } from './label';
import { currentAgent } from './turn.recorder';

/** The fields of the provider lib's LlmCallRecord that telemetry reads (kept structural: no import). */
export interface ModelAttempt {
  modelName: string;
  provider: string;
  model: string;
  attempt: number;
  isFallback: boolean;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  costUsd: number;
  latencyMs: number;
  status: 'ok' | 'error' | 'cancelled' | 'cached';
  errorCode?: string;
}

export interface AttemptTiming {
  /** performance.now() when the attempt started. */
  startedAt: number;
  /** performance.now() of the first streamed chunk, for streaming attempts. */
  firstChunkAt?: number;
}

const epochMs = (perfNow: number) => performance.timeOrigin + perfNow;

/** One model attempt finished: GenAI metrics and a `chat {model}` span under the turn (its spend: the provider lib's SpendBudget). */
export function recordModelAttempt(call: ModelAttempt, timing: AttemptTiming): void {
  const m = telemetry.metrics;
  const agent = label(currentAgent());
  const model = label(call.modelName);
  const provider = label(call.provider);
  const errorType = call.status === 'error' ? label(call.errorCode ?? 'error') : call.status === 'cancelled' ? 'cancelled' : '';
  if (m) {
    m.modelCalls.labels(agent, provider, model, call.status, errorType).inc();
    m.opDuration.labels('chat', provider, model, errorType).observe(call.latencyMs / 1000);
    if (timing.firstChunkAt !== undefined)
      m.timeToFirstChunk.labels(provider, model).observe((timing.firstChunkAt - timing.startedAt) / 1000);
    const { inputTokens, outputTokens, cachedInputTokens = 0 } = call.usage;
    if (inputTokens || outputTokens) {
      m.tokenUsage.labels('chat', provider, model, 'input').observe(inputTokens);
      m.tokenUsage.labels('chat', provider, model, 'output').observe(outputTokens);
    }
    if (inputTokens) m.modelTokens.labels(agent, model, 'input').inc(inputTokens);
    if (outputTokens) m.modelTokens.labels(agent, model, 'output').inc(outputTokens);
    if (cachedInputTokens) m.modelTokens.labels(agent, model, 'cached_input').inc(cachedInputTokens);
    if (call.costUsd > 0) m.modelCost.labels(agent, model).inc(call.costUsd);
  }
  const span = tracer().startSpan(`${SPAN.modelAttempt} ${call.model}`, {
    startTime: epochMs(timing.startedAt),
    attributes: {
      [ATTR.operationName]: 'chat',
      [ATTR.providerName]: call.provider,
      [ATTR.requestModel]: call.model,
      [ATTR.usageInputTokens]: call.usage.inputTokens,
      [ATTR.usageOutputTokens]: call.usage.outputTokens,
      [ATTR.usageCachedInputTokens]: call.usage.cachedInputTokens ?? 0,
      [ATTR.attempt]: call.attempt,
      [ATTR.fallback]: call.isFallback,
      [ATTR.costUsd]: call.costUsd,
      'nestclaw.model.name': call.modelName,
    },
  });
  if (errorType) {
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end(epochMs(timing.startedAt + call.latencyMs));
}

export interface ModelRun {
  calls: readonly ModelAttempt[];
  /** Models skipped for this request and why ('circuit open', 'at its rate limit'). */
  skipped: Iterable<[string, string]>;
  budgetExhausted: boolean;
}

/** One request through the chain finished: retries, fallbacks (from → to, reason), skips, budget. */
export function recordModelRun(run: ModelRun): void {
  const m = telemetry.metrics;
  if (!m) return;
  for (let i = 1; i < run.calls.length; i++) {
    const prev = run.calls[i - 1];
    const cur = run.calls[i];
    if (prev.modelName === cur.modelName) m.modelRetries.labels(label(cur.modelName)).inc();
    else m.modelFallbacks.labels(label(prev.modelName), label(cur.modelName), label(prev.errorCode ?? prev.status)).inc();
  }
  for (const [model, why] of run.skipped) {
    m.rateLimitSkips.labels(label(model), why === 'circuit open' ? 'circuit_open' : 'rate_limit').inc();
  }
  if (run.budgetExhausted) m.budgetExhausted.labels(label(currentAgent())).inc();
}

/** The state of every model's breaker, read at scrape time. */
export function observeBreakerStates(source: () => Iterable<{ model: string; state: string }>): void {
  telemetry.sources.breakers = source;
}
