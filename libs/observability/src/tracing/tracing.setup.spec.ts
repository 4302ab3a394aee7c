import { trace } from '@opentelemetry/api';
import { startTracing, TracingHandle } from './tracing.setup';

describe('startTracing', () => {
  const saved = { ...process.env };
  let handle: TracingHandle | undefined;
  afterEach(async () => {
    await handle?.shutdown();
    trace.disable();
    process.env = { ...saved };
  });

  // Nothing is exported: spans are only started and ended, and the port is closed anyway.
  const start = (env: NodeJS.ProcessEnv) => {
    process.env = { ...saved, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', ...env };
    handle = startTracing(process.env);
    return trace.getTracer('spec').startSpan('turn');
  };

  it('records every span by default', () => {
    expect(start({}).isRecording()).toBe(true);
  });

  it('honours OTEL_TRACES_SAMPLER', () => {
    expect(start({ OTEL_TRACES_SAMPLER: 'always_off' }).isRecording()).toBe(false);
  });

  it('honours OTEL_TRACES_SAMPLER_ARG with a ratio sampler', () => {
    expect(start({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }).isRecording()).toBe(false);
  });
});
