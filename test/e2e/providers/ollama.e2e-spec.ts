import { OllamaProvider } from '@nestclaw/provider';
import { FakeOllamaServer } from '../../fixtures/fake-ollama.server';
import { ask, collect, weatherTool } from './provider-spec.support';

describe('OllamaProvider against a fake native /api/chat', () => {
  const fake = new FakeOllamaServer();
  let provider: OllamaProvider;
  beforeAll(async () => {
    await fake.start();
    provider = new OllamaProvider({ baseUrl: fake.url, model: 'qwen2.5', temperature: 0.2 });
  });
  afterAll(() => fake.stop());

  it('answers a chat turn with stream:false and maps eval counts to usage', async () => {
    const res = await provider.chat({ messages: ask('hello'), maxTokens: 50 });
    expect(res).toMatchObject({ content: 'echo: hello', finishReason: 'stop', toolCalls: [], model: 'qwen2.5' });
    expect(res.usage.inputTokens).toBeGreaterThan(0);
    expect(res.usage.outputTokens).toBe(Math.ceil('echo: hello'.length / 4));
    const sent = fake.requests[fake.requests.length - 1].body;
    expect(sent).toMatchObject({ model: 'qwen2.5', stream: false, options: { temperature: 0.2, num_predict: 50 } });
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ]);
  });

  it('streams NDJSON lines and ends with the final counts', async () => {
    const events = await collect(provider.chatStream({ messages: ask('stream this please') }));
    const texts = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
    expect(texts.length).toBeGreaterThan(2);
    expect(texts.join('')).toBe('echo: stream this please');
    expect(events[events.length - 1]).toMatchObject({
      type: 'done',
      response: { content: 'echo: stream this please', finishReason: 'stop' },
    });
    expect(fake.requests[fake.requests.length - 1].body.stream).toBe(true);
  });

  it('returns tool calls (arguments as objects on the wire) and sends results back as role "tool" with tool_name', async () => {
    const first = await provider.chat({ messages: ask('[tool:get_weather {"city":"Paris"}]'), tools: [weatherTool] });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.toolCalls).toEqual([{ id: expect.any(String), name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(fake.requests[fake.requests.length - 1].body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Current weather for a city', parameters: weatherTool.parameters },
      },
    ]);
    const call = first.toolCalls[0];
    const second = await provider.chat({
      messages: [
        ...ask('[tool:get_weather {"city":"Paris"}]'),
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, content: '{"temp":21}' },
      ],
      tools: [weatherTool],
    });
    expect(second.content).toBe('tool said: {"temp":21}');
    const sent = fake.requests[fake.requests.length - 1].body.messages;
    expect(sent[2]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
    });
    expect(sent[3]).toEqual({ role: 'tool', content: '{"temp":21}', tool_name: 'get_weather' });
  });

  it('streams a tool call as a tool_call event', async () => {
    const events = await collect(provider.chatStream({ messages: ask('[tool:get_weather {"city":"Oslo"}]'), tools: [weatherTool] }));
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: expect.any(String), name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(events[events.length - 1]).toMatchObject({ type: 'done', response: { finishReason: 'tool_calls' } });
  });

  it('surfaces a missing model (404) as a request error and a 503 as retryable', async () => {
    fake.enqueue({ kind: 'error', status: 404, message: "model 'qwen2.5' not found" });
    await expect(provider.chat({ messages: ask('x') })).rejects.toMatchObject({ failure: 'bad_request', status: 404 });
    fake.enqueue({ kind: 'error', status: 503, message: 'server busy' });
    await expect(provider.chat({ messages: ask('x') })).rejects.toMatchObject({ failure: 'retryable', status: 503 });
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

  it('probes /api/tags, and an unreachable server is reported as such', async () => {
    await expect(provider.probe(AbortSignal.timeout(2000))).resolves.toMatchObject({ reachable: true, status: 200 });
    const down = new OllamaProvider({ baseUrl: 'http://127.0.0.1:9', model: 'qwen2.5' });
    await expect(down.probe(AbortSignal.timeout(2000))).resolves.toMatchObject({ reachable: false, keyRejected: false });
  });
});
