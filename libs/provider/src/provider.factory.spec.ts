import { parse } from 'yaml';
import { configSchema, interpolate, PROVIDER_KINDS } from '@nestclaw/config';
import { createEmbeddingProvider, createProvider, isLocalProvider, KNOWN_PROVIDERS } from './provider.factory';
import { priceFor } from './pricing';

/**
 * The configuration example of issue 3. Verbatim it is not valid YAML: an unquoted `${VAR}` inside
 * a `{ … }` flow map ends the map at its `}`. Quoted, as users must write it there, it works.
 */
const ISSUE_EXAMPLE = `
models:
  deepseek-v3: { provider: deepseek, model: deepseek-chat, api_key: "\${DEEPSEEK_API_KEY}", price: { input: 0.27, output: 1.10 } }
  gpt-4o-mini: { provider: openai, model: gpt-4o-mini, api_key: "\${OPENAI_API_KEY}", limits: { rpm: 500, tpm: 200000 } }
  local:       { provider: ollama, model: qwen2.5, base_url: http://127.0.0.1:11434 }
  any-name:    { provider: openai-compatible, base_url: http://host/v1, api_key: sk-x, model: some-model }
providers:
  primary: deepseek-v3
  fallback: [gpt-4o-mini, local]
  timeout_budget: 120s
  retry: { max_attempts: 3, base_delay: 500ms, max_delay: 8s }
  circuit_breaker: { threshold: 3, reset_interval: 60s }
`;

describe('provider configuration', () => {
  const config = configSchema.parse(interpolate(parse(ISSUE_EXAMPLE), { DEEPSEEK_API_KEY: 'sk-ds' }));

  it('accepts the documented example, durations included', () => {
    expect(config.providers).toMatchObject({
      primary: 'deepseek-v3',
      fallback: ['gpt-4o-mini', 'local'],
      timeout_budget: 120_000,
      retry: { max_attempts: 3, base_delay: 500, max_delay: 8000 },
      circuit_breaker: { threshold: 3, reset_interval: 60_000 },
      idempotency_ttl: 600_000,
    });
    expect(config.models['gpt-4o-mini'].limits).toEqual({ rpm: 500, tpm: 200_000 });
  });

  it('builds every provider the config schema accepts, and the schema accepts every one it builds', () => {
    expect([...KNOWN_PROVIDERS].sort()).toEqual([...PROVIDER_KINDS].sort());
  });

  it('builds the right adapter for each model', () => {
    expect(Object.fromEntries(Object.entries(config.models).map(([n, m]) => [n, createProvider(m).kind]))).toEqual({
      'deepseek-v3': 'deepseek',
      'gpt-4o-mini': 'openai',
      local: 'ollama',
      'any-name': 'openai-compatible',
    });
    expect(createProvider({ ...config.models.local, provider: 'anthropic', model: 'claude-haiku-4-5' }).kind).toBe('anthropic');
    expect(createProvider({ ...config.models.local, provider: 'gemini', model: 'gemini-2.5-flash' }).kind).toBe('gemini');
  });

  it('uses the config price over the built-in table', () => {
    expect(priceFor('deepseek-chat', config.models['deepseek-v3'].price)).toEqual({ input: 0.27, output: 1.1 });
    expect(priceFor('gpt-4o-mini', config.models['gpt-4o-mini'].price)).toMatchObject({ input: 0.15, output: 0.6 });
  });

  it('treats an unset ${VAR} key as no key, and local backends as needing none', () => {
    expect(config.models['gpt-4o-mini'].api_key).toBe('');
    expect(isLocalProvider(config.models.local)).toBe(true);
    expect(isLocalProvider(config.models['gpt-4o-mini'])).toBe(false);
  });

  it('builds embedding providers for OpenAI-compatible, Gemini and Ollama models', () => {
    expect(createEmbeddingProvider({ ...config.models['any-name'], kind: 'embedding' }).kind).toBe('openai-compatible');
    expect(createEmbeddingProvider({ ...config.models.local, kind: 'embedding' }).kind).toBe('ollama');
    expect(createEmbeddingProvider({ ...config.models.local, provider: 'gemini', kind: 'embedding' }).kind).toBe('gemini');
  });
});
