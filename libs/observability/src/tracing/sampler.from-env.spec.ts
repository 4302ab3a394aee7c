import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { samplerFromEnv } from './sampler.from-env';

const decide = (name: string, env: NodeJS.ProcessEnv = {}) =>
  samplerFromEnv(env).shouldSample(ROOT_CONTEXT, '0af7651916cd43dd8448eb211c80319c', name, SpanKind.CLIENT, {}, []).decision;

describe('samplerFromEnv', () => {
  it('keeps every span by default', () => {
    expect(decide('pg.query:INSERT')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide('invoke_agent default')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it('honours OTEL_TRACES_SAMPLER', () => {
    expect(decide('invoke_agent default', { OTEL_TRACES_SAMPLER: 'always_off' })).toBe(SamplingDecision.NOT_RECORD);
    expect(decide('invoke_agent default', { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(
      SamplingDecision.NOT_RECORD,
    );
  });
});
