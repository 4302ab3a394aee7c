import { AnthropicProvider, costOf, ProviderAttemptError } from '@nestclaw/provider';
import { FakeAnthropicServer } from '../../fixtures/fake-anthropic.server';
import { ask, collect, weatherTool } from './provider-spec.support';

describe('AnthropicProvider against a fake Messages API', () => {
  const fake = new FakeAnthropicServer();
  let provider: AnthropicProvider;
  beforeAll(async () => {
    await fake.start();
    fake.apiKey = 'sk-ant-test';
    provider = new AnthropicProvider({ baseUrl: fake.url, apiKey: 'sk-ant-test', model: 'claude-haiku-4-5' });
  });
  afterAll(() => fake.stop());

  it('answers a chat turn with the system prompt sent apart and usage mapped', async () => {
    const res = await provider.chat({ messages: ask('hello') });
    expect(res).toMatchObject({ content: 'echo: hello', finishReason: 'stop', toolCalls: [], model: 'claude-haiku-4-5' });
    expect(res.usage.inputTokens).toBeGreaterThan(0);
    expect(res.usage.outputTokens).toBeGreaterThan(0);
    const sent = fake.requests[fake.requests.length - 1];
    expect(sent.body.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(sent.body.max_tokens).toBe(4096);
    expect([sent.headers['x-api-key'], sent.headers.authorization]).toContain(
      sent.headers['x-api-key'] ? 'sk-ant-test' : 'Bearer sk-ant-test',
    );
    expect(sent.headers['anthropic-version']).toBeDefined();
  });

  it('counts prompt-cache reads and writes in usage and prices them', async () => {
    fake.cacheReadTokens = 100;
    fake.cacheWriteTokens = 20;
    try {
      const res = await provider.chat({ messages: ask('cached please') });
      expect(res.usage.cachedInputTokens).toBe(100);
      expect(res.usage.cacheWriteInputTokens).toBe(20);
      expect(res.usage.inputTokens).toBeGreaterThanOrEqual(121);
      const price = { input: 1, output: 5, cached_input: 0.1, cache_write: 1.25 };
      const fresh = res.usage.inputTokens - 120;
      expect(costOf(res.usage, price)).toBeCloseTo((fresh * 1 + 100 * 0.1 + 20 * 1.25 + res.usage.outputTokens * 5) / 1e6, 8);
    } finally {
      fake.cacheReadTokens = 0;
      fake.cacheWriteTokens = 0;
    }
  });

  it('streams text deltas and ends with the full response and usage', async () => {
    const events = await collect(provider.chatStream({ messages: ask('stream this please') }));
    const texts = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
    expect(texts.length).toBeGreaterThan(2);
    expect(texts.join('')).toBe('echo: stream this please');
    const done = events[events.length - 1];
    expect(done).toMatchObject({ type: 'done', response: { content: 'echo: stream this please', finishReason: 'stop' } });
    expect((done as { response: { usage: { outputTokens: number } } }).response.usage.outputTokens).toBeGreaterThan(0);
  });

  it('returns a tool_use block as a tool call, then sends the result back as a tool_result block', async () => {
    const first = await provider.chat({ messages: ask('weather? [tool:get_weather {"city":"Paris"}]'), tools: [weatherTool] });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.toolCalls).toEqual([{ id: expect.stringMatching(/^toolu_/), name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(fake.requests[fake.requests.length - 1].body.tools).toEqual([
      { name: 'get_weather', description: 'Current weather for a city', input_schema: weatherTool.parameters },
    ]);
    const call = first.toolCalls[0];
    const second = await provider.chat({
      messages: [
        ...ask('weather? [tool:get_weather {"city":"Paris"}]'),
        { role: 'assistant', content: first.content, toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, name: call.name, content: '{"temp":21}' },
      ],
      tools: [weatherTool],
    });
    expect(second.content).toBe('tool said: {"temp":21}');
    const turns = fake.requests[fake.requests.length - 1].body.messages;
    expect(turns[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: call.id, name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
    expect(turns[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '{"temp":21}' }] });
  });

  it('streams a tool call assembled from input_json_delta events', async () => {
    const events = await collect(provider.chatStream({ messages: ask('[tool:get_weather {"city":"Oslo"}]'), tools: [weatherTool] }));
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls).toEqual([{ type: 'tool_call', call: { id: expect.any(String), name: 'get_weather', arguments: '{"city":"Oslo"}' } }]);
    expect(events[events.length - 1]).toMatchObject({ type: 'done', response: { finishReason: 'tool_calls' } });
  });

  it('classifies 401 as a bad key, 529 as retryable with Retry-After, and "prompt is too long" as context length', async () => {
    const bad = new AnthropicProvider({ baseUrl: fake.url, apiKey: 'wrong', model: 'claude-haiku-4-5' });
    await expect(bad.chat({ messages: ask('x') })).rejects.toMatchObject({ failure: 'auth', status: 401 });
    fake.enqueue({ kind: 'error', status: 529, headers: { 'retry-after': '7' } });
    await expect(provider.chat({ messages: ask('x') })).rejects.toMatchObject({ failure: 'retryable', status: 529, retryAfterMs: 7000 });
    fake.enqueue({ kind: 'error', status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' });
    const err = (await provider.chat({ messages: ask('x') }).catch((e: unknown) => e)) as ProviderAttemptError;
    expect(err.failure).toBe('context_length');
  });

  it('reports a stream cut mid-way as a retryable failure after the tokens already seen', async () => {
    fake.enqueue({ kind: 'cut', text: 'one two three four five six', afterTokens: 2 });
    const seen: string[] = [];
    const run = async () => {
      for await (const e of provider.chatStream({ messages: ask('x') })) if (e.type === 'text') seen.push(e.text);
    };
    await expect(run()).rejects.toMatchObject({ failure: 'retryable' });
    expect(seen.join('')).toBe('one two ');
  });

  it('probes the model list and tells a rejected key apart from an unreachable server', async () => {
    await expect(provider.probe(AbortSignal.timeout(2000))).resolves.toMatchObject({ reachable: true, keyRejected: false });
    const bad = new AnthropicProvider({ baseUrl: fake.url, apiKey: 'wrong', model: 'm' });
    await expect(bad.probe(AbortSignal.timeout(2000))).resolves.toMatchObject({ reachable: true, keyRejected: true, status: 401 });
    const down = new AnthropicProvider({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'm' });
    await expect(down.probe(AbortSignal.timeout(2000))).resolves.toMatchObject({ reachable: false });
  });
});
