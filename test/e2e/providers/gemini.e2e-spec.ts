import { GeminiProvider, ToolDefinition } from '@nestclaw/provider';
import { FakeGeminiServer } from '../../fixtures/fake-gemini.server';
import { ask, collect } from './provider-spec.support';

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

describe('GeminiProvider against a fake generateContent API', () => {
  const fake = new FakeGeminiServer();
  let provider: GeminiProvider;
  beforeAll(async () => {
    await fake.start();
    fake.apiKey = 'AIza-test';
    provider = new GeminiProvider({ baseUrl: fake.url, apiKey: 'AIza-test', model: 'gemini-2.5-flash' });
  });
  afterAll(() => fake.stop());

  it('answers a chat turn with systemInstruction, contents and usageMetadata mapped', async () => {
    const res = await provider.chat({ messages: ask('hello'), temperature: 0.3, maxTokens: 100 });
    expect(res).toMatchObject({ content: 'echo: hello', finishReason: 'stop', toolCalls: [], model: 'gemini-2.5-flash' });
    expect(res.usage.inputTokens).toBeGreaterThan(0);
    const sent = fake.requests[fake.requests.length - 1];
    expect(sent).toMatchObject({ model: 'gemini-2.5-flash', stream: false });
    expect(sent.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(sent.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hello' }] }]);
    expect(sent.body.generationConfig).toEqual({ temperature: 0.3, maxOutputTokens: 100 });
    expect(sent.headers['x-goog-api-key']).toBe('AIza-test');
  });

  it('counts cached tokens as cached input and thinking tokens as output', async () => {
    fake.cachedTokens = 5;
    fake.thoughtTokens = 7;
    try {
      const res = await provider.chat({ messages: ask('think') });
      expect(res.usage.cachedInputTokens).toBe(5);
      expect(res.usage.outputTokens).toBe(Math.ceil('echo: think'.length / 4) + 7);
    } finally {
      fake.cachedTokens = 0;
      fake.thoughtTokens = 0;
    }
  });

  it('streams server-sent chunks and ends with the full response and usage', async () => {
    const events = await collect(provider.chatStream({ messages: ask('stream this please') }));
    const texts = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
    expect(texts.length).toBeGreaterThan(2);
    expect(texts.join('')).toBe('echo: stream this please');
    expect(events[events.length - 1]).toMatchObject({
      type: 'done',
      response: { content: 'echo: stream this please', finishReason: 'stop', usage: { outputTokens: expect.any(Number) } },
    });
    expect(fake.requests[fake.requests.length - 1].stream).toBe(true);
  });

  it('returns a functionCall as a tool call and sends the result back as a functionResponse by name', async () => {
    const first = await provider.chat({ messages: ask('[tool:get_weather {"city":"Paris"}]'), tools: [weather] });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.toolCalls).toEqual([{ id: expect.any(String), name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    // JSON Schema keywords Gemini rejects are dropped from the declaration.
    expect(fake.requests[fake.requests.length - 1].body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
      },
    ]);
    const call = first.toolCalls[0];
    const second = await provider.chat({
      messages: [
        ...ask('[tool:get_weather {"city":"Paris"}]'),
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, content: '{"temp":21}' },
      ],
      tools: [weather],
    });
    expect(second.content).toBe('tool said: {"temp":21}');
    const contents = fake.requests[fake.requests.length - 1].body.contents;
    expect(contents[1]).toEqual({ role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] });
    expect(contents[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 21 } } }] });
  });

  it('streams a function call as a tool_call event', async () => {
    const events = await collect(provider.chatStream({ messages: ask('[tool:get_weather {"city":"Oslo"}]'), tools: [weather] }));
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: expect.any(String), name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(events[events.length - 1]).toMatchObject({ type: 'done', response: { finishReason: 'tool_calls' } });
  });

  it("classifies Gemini's 400 API_KEY_INVALID as a bad key and a 429 RetryInfo as Retry-After", async () => {
    const bad = new GeminiProvider({ baseUrl: fake.url, apiKey: 'wrong', model: 'gemini-2.5-flash' });
    await expect(bad.chat({ messages: ask('x') })).rejects.toMatchObject({ failure: 'auth', status: 400 });
    fake.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    await expect(provider.chat({ messages: ask('x') })).rejects.toMatchObject({ failure: 'retryable', status: 429, retryAfterMs: 30_000 });
    fake.enqueue({ kind: 'error', status: 400, message: 'The input token count exceeds the maximum number of tokens allowed' });
    await expect(provider.chat({ messages: ask('x') })).rejects.toMatchObject({ failure: 'context_length' });
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

  it('probes the model list and recognises a rejected key', async () => {
    await expect(provider.probe(AbortSignal.timeout(2000))).resolves.toMatchObject({ reachable: true, keyRejected: false, status: 200 });
    const bad = new GeminiProvider({ baseUrl: fake.url, apiKey: 'wrong', model: 'gemini-2.5-flash' });
    await expect(bad.probe(AbortSignal.timeout(2000))).resolves.toMatchObject({ reachable: true, keyRejected: true });
  });
});
