import type { ModelConfig } from '@nestclaw/config';
import { AnthropicProvider } from './anthropic/anthropic.provider';
import { EmbeddingProvider } from './embedding/embedding-provider.port';
import { GeminiEmbedding } from './embedding/gemini.embedding';
import { OllamaEmbedding } from './embedding/ollama.embedding';
import { OpenAiCompatibleEmbedding } from './embedding/openai-compatible.embedding';
import { GeminiProvider } from './gemini/gemini.provider';
import { ModelProvider } from './model-provider.port';
import { OllamaProvider } from './ollama/ollama.provider';
import { OpenAiCompatibleProvider } from './openai/openai-compatible.provider';
import { OPENAI_COMPATIBLE_PRESETS } from './openai/openai-presets';

const NATIVE = ['anthropic', 'gemini', 'ollama'] as const;
export const KNOWN_PROVIDERS = [...Object.keys(OPENAI_COMPATIBLE_PRESETS), ...NATIVE];

const LOCAL_KINDS = new Set(['ollama', 'vllm', 'lmstudio']);
const LOOPBACK = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/;

/** Backends that usually run on this machine without a key (a generic server on loopback too). */
export const isLocalProvider = (cfg: ModelConfig) =>
  LOCAL_KINDS.has(cfg.provider) || (cfg.provider === 'openai-compatible' && LOOPBACK.test(cfg.base_url ?? ''));

function unknown(cfg: ModelConfig): Error {
  return new Error(`unknown provider "${cfg.provider}" (known: ${KNOWN_PROVIDERS.join(', ')})`);
}

function openAiBaseUrl(cfg: ModelConfig): string {
  const baseUrl = cfg.base_url || OPENAI_COMPATIBLE_PRESETS[cfg.provider]?.baseUrl;
  if (!baseUrl) throw new Error('base_url is required for provider "openai-compatible"');
  return baseUrl;
}

export function createProvider(cfg: ModelConfig): ModelProvider {
  const common = {
    baseUrl: cfg.base_url,
    apiKey: cfg.api_key,
    model: cfg.model,
    temperature: cfg.temperature,
    maxTokens: cfg.max_tokens,
    headers: cfg.headers,
  };
  switch (cfg.provider) {
    case 'anthropic':
      return new AnthropicProvider(common);
    case 'gemini':
      return new GeminiProvider(common);
    case 'ollama':
      return new OllamaProvider(common);
  }
  const preset = OPENAI_COMPATIBLE_PRESETS[cfg.provider];
  if (!preset) throw unknown(cfg);
  return Object.assign(new OpenAiCompatibleProvider({ ...common, baseUrl: openAiBaseUrl(cfg), preset }), { kind: cfg.provider });
}

export function createEmbeddingProvider(cfg: ModelConfig): EmbeddingProvider {
  const common = { baseUrl: cfg.base_url, apiKey: cfg.api_key, model: cfg.model, dimensions: cfg.dimensions, headers: cfg.headers };
  switch (cfg.provider) {
    case 'anthropic':
      throw new Error('Anthropic has no embeddings API; use an OpenAI-compatible, Gemini or Ollama model');
    case 'gemini':
      return new GeminiEmbedding(common);
    case 'ollama':
      return new OllamaEmbedding(common);
  }
  if (!OPENAI_COMPATIBLE_PRESETS[cfg.provider]) throw unknown(cfg);
  return Object.assign(new OpenAiCompatibleEmbedding({ ...common, baseUrl: openAiBaseUrl(cfg) }), { kind: cfg.provider });
}
