import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NestclawError } from '@nestclaw/common';
import { telemetry } from '../telemetry.state';
import { label } from './label';
import { ModelAttempt, recordModelRun } from './model-call.recorder';
import { beginTurn } from './turn.recorder';

telemetry.configure({ metrics: true, captureContent: false, version: 'test' });
const m = telemetry.metrics!;
const value = async (name: string, labels: Record<string, string>) => {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
};

const call = (modelName: string, status: ModelAttempt['status'], errorCode?: string): ModelAttempt => ({
  modelName,
  provider: 'openai-compatible',
  model: modelName,
  attempt: 1,
  isFallback: false,
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: 0,
  latencyMs: 5,
  status,
  errorCode,
});

describe('telemetry recorders', () => {
  it('counts a retry on the same model and a fallback with its reason', async () => {
    recordModelRun({
      calls: [call('a', 'error', 'http_500'), call('a', 'error', 'http_503'), call('b', 'ok')],
      skipped: [],
      budgetExhausted: false,
    });
    expect(await value('nestclaw_model_retries_total', { model: 'a' })).toBe(1);
    expect(await value('nestclaw_model_fallbacks_total', { from: 'a', to: 'b', reason: 'http_503' })).toBe(1);
  });

  it('counts models skipped at their rate limit or with an open breaker', async () => {
    recordModelRun({
      calls: [],
      skipped: [
        ['c', 'at its rate limit'],
        ['d', 'circuit open'],
      ],
      budgetExhausted: false,
    });
    expect(await value('nestclaw_model_rate_limit_skips_total', { model: 'c', reason: 'rate_limit' })).toBe(1);
    expect(await value('nestclaw_model_rate_limit_skips_total', { model: 'd', reason: 'circuit_open' })).toBe(1);
  });

  it('records a failed turn by outcome and error code and leaves nothing in flight', async () => {
    await expect(
      beginTurn({ agent: 'x', channel: 'http', sessionId: 's1' }).run(() => Promise.reject(new NestclawError('provider_error', 'down'))),
    ).rejects.toThrow('down');
    expect(await value('nestclaw_turns_total', { agent: 'x', outcome: 'error' })).toBe(1);
    expect(await value('nestclaw_turn_errors_total', { agent: 'x', code: 'provider_error' })).toBe(1);
    expect(await value('nestclaw_turns_in_flight', { agent: 'x' })).toBe(0);
  });

  it('records an interrupted turn from its result', async () => {
    await beginTurn({ agent: 'y', channel: 'ws', sessionId: 's2' }).run(async () => ({ interrupted: true }));
    expect(await value('nestclaw_turns_total', { agent: 'y', channel: 'ws', outcome: 'interrupted' })).toBe(1);
  });

  it('keeps the number of series constant however many sessions chat', async () => {
    const count = async () => (await m.registry.getMetricsAsJSON()).reduce((n, x) => n + x.values.length, 0);
    await beginTurn({ agent: 'z', channel: 'http', sessionId: 'warm' }).run(async () => ({}));
    const before = await count();
    for (let i = 0; i < 2000; i++) await beginTurn({ agent: 'z', channel: 'http', sessionId: `s-${i}` }).run(async () => ({}));
    expect(await count()).toBe(before);
  });

  it('clamps a label value that is not a short identifier', () => {
    expect(label('gpt-4o')).toBe('gpt-4o');
    expect(label('some free text with spaces')).toBe('other');
    expect(label(undefined)).toBe('none');
  });
});

describe('message content on the turn span', () => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

  it('is left out by default', async () => {
    await beginTurn({ agent: 'c', channel: 'http', sessionId: 's', input: 'secret words' }).run(async () => ({ reply: 'secret reply' }));
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).not.toContain('secret');
  });

  it('is recorded as GenAI messages when capture_content is on', async () => {
    exporter.reset();
    telemetry.configure({ metrics: true, captureContent: true, version: 'test' });
    await beginTurn({ agent: 'c', channel: 'http', sessionId: 's', input: '你好' }).run(async () => ({ reply: 'hi' }));
    const attrs = exporter.getFinishedSpans()[0].attributes;
    expect(JSON.parse(attrs['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: '你好' }] }]);
    expect(attrs['gen_ai.output.messages']).toContain('hi');
    telemetry.configure({ metrics: true, captureContent: false, version: 'test' });
  });
});
