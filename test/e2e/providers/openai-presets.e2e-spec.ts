import type { ModelConfig } from '@nestclaw/config';
import { ChatStreamEvent, createProvider } from '@nestclaw/provider';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';

const model = (provider: string, base_url: string, extra: Partial<ModelConfig> = {}): ModelConfig => ({
  provider,
  base_url,
  api_key: 'sk-test',
  model: 'some-model',
  kind: 'chat',
  max_tokens: 100,
  ...extra,
});

async function drain(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** The OpenAI-compatible presets: same adapter, different base URL, headers and quirks. */
describe('OpenAI-compatible presets', () => {
  const fake = new FakeOpenAiServer();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  const last = () => fake.requests[fake.requests.length - 1];
  const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

  it('sends OpenAI max_completion_tokens and the others max_tokens', async () => {
    await createProvider(model('openai', fake.url)).chat(ask);
    expect(last().body).toMatchObject({ max_completion_tokens: 100 });
    expect(last().body).not.toHaveProperty('max_tokens');
    await createProvider(model('deepseek', fake.url)).chat(ask);
    expect(last().body).toMatchObject({ max_tokens: 100 });
  });

  it('asks for stream usage where the service supports it, and still gets usage where it is not asked for', async () => {
    const deepseek = await drain(createProvider(model('deepseek', fake.url)).chatStream(ask));
    expect(last().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(deepseek[deepseek.length - 1]).toMatchObject({ type: 'done', response: { usage: { inputTokens: expect.any(Number) } } });
    const zhipu = await drain(createProvider(model('zhipu', fake.url)).chatStream(ask));
    expect(last().body).not.toHaveProperty('stream_options');
    expect(zhipu[zhipu.length - 1]).toMatchObject({ type: 'done', response: { usage: { inputTokens: expect.any(Number) } } });
  });

  it("sends the preset's headers plus the model's own, and the key as a bearer token", async () => {
    await createProvider(model('openrouter', fake.url, { headers: { 'HTTP-Referer': 'https://example.org' } })).chat(ask);
    expect(last().headers).toMatchObject({ 'x-title': 'nestclaw', 'http-referer': 'https://example.org', authorization: 'Bearer sk-test' });
  });

  it('reports its preset name as the provider kind, and needs a base_url only for the generic one', () => {
    expect(createProvider(model('groq', fake.url)).kind).toBe('groq');
    expect(createProvider({ ...model('qwen', ''), base_url: undefined }).kind).toBe('qwen');
    expect(() => createProvider({ ...model('openai-compatible', ''), base_url: undefined })).toThrow(/base_url is required/);
    expect(() => createProvider(model('nope', fake.url))).toThrow(/unknown provider "nope"/);
  });

  it('passes rate-limit headers of a successful answer on to the ReliableProvider', async () => {
    fake.responseHeaders = { 'x-ratelimit-remaining-requests': '12', 'x-ratelimit-reset-requests': '1m30s' };
    try {
      const res = await createProvider(model('openai-compatible', fake.url)).chat(ask);
      expect(res.rateLimit).toEqual({
        remainingRequests: 12,
        remainingTokens: undefined,
        resetRequestsMs: 90_000,
        resetTokensMs: undefined,
      });
    } finally {
      fake.responseHeaders = {};
    }
  });
});
