import type { ModelConfig } from '@nestclaw/config';
import { createEmbeddingProvider } from '@nestclaw/provider';
import { fakeEmbedding, FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { FakeGeminiServer } from '../../fixtures/fake-gemini.server';
import { FakeOllamaServer } from '../../fixtures/fake-ollama.server';

const model = (cfg: Partial<ModelConfig> & Pick<ModelConfig, 'provider' | 'model'>): ModelConfig => ({ kind: 'embedding', ...cfg });

describe('embedding providers against fake servers', () => {
  const openai = new FakeOpenAiServer();
  const gemini = new FakeGeminiServer();
  const ollama = new FakeOllamaServer();
  beforeAll(async () => {
    await Promise.all([openai.start(), gemini.start(), ollama.start()]);
  });
  afterAll(() => Promise.all([openai.stop(), gemini.stop(), ollama.stop()]));

  const texts = ['first text', '第二段文字'];

  it('embeds a batch through OpenAI-compatible /v1/embeddings, in input order, with reported tokens', async () => {
    const e = createEmbeddingProvider(model({ provider: 'openai-compatible', base_url: openai.url, model: 'text-embedding-3-small' }));
    const res = await e.embed(texts);
    expect(res.vectors).toEqual(texts.map((t) => fakeEmbedding(t)));
    expect(res.inputTokens).toBeGreaterThan(0);
    expect(openai.embeddingRequests[0]).toEqual({ model: 'text-embedding-3-small', input: texts });
  });

  it('embeds a batch through Ollama /api/embed', async () => {
    const e = createEmbeddingProvider(model({ provider: 'ollama', base_url: ollama.url, model: 'nomic-embed-text' }));
    const res = await e.embed(texts);
    expect(res.vectors).toEqual(texts.map((t) => fakeEmbedding(t)));
    expect(res.inputTokens).toBeGreaterThan(0);
    expect(ollama.embeddingRequests[0]).toEqual({ model: 'nomic-embed-text', input: texts });
  });

  it('embeds a batch through Gemini batchEmbedContents', async () => {
    gemini.apiKey = 'AIza-test';
    const e = createEmbeddingProvider(
      model({ provider: 'gemini', base_url: gemini.url, api_key: 'AIza-test', model: 'gemini-embedding-001' }),
    );
    const res = await e.embed(texts);
    expect(res.vectors).toEqual(texts.map((t) => fakeEmbedding(t)));
    expect(gemini.embeddingRequests[0]).toEqual({ model: 'gemini-embedding-001', texts });
  });

  it('refuses to build an embedding provider for Anthropic, which has no embeddings API', () => {
    expect(() => createEmbeddingProvider(model({ provider: 'anthropic', model: 'claude-haiku-4-5' }))).toThrow(/no embeddings API/);
  });
});
