import { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  Sampler,
  SamplingDecision,
  SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';

/** BEGIN/COMMIT/ROLLBACK carry no information a trace reader needs, yet are a third of a turn's SQL spans. */
const TRANSACTION_CONTROL = /^pg\.query:(BEGIN|COMMIT|ROLLBACK)\b/;

/** The sampler named by OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on). */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const arg = Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1;
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(arg);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(arg) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Drops transaction-control statements, then defers to the configured sampler. */
export class SqlNoiseSampler implements Sampler {
  constructor(private readonly inner: Sampler) {}

  shouldSample(ctx: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    if (TRANSACTION_CONTROL.test(name)) return { decision: SamplingDecision.NOT_RECORD };
    return this.inner.shouldSample(ctx, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `SqlNoiseSampler{${this.inner.toString()}}`;
  }
}
