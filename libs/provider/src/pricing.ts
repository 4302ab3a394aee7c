import type { Usage } from './model-provider.port';

/** USD per 1M tokens. */
export interface Price {
  input: number;
  output: number;
  /** Input tokens served from the prompt cache. */
  cached_input?: number;
  /** Input tokens written to the prompt cache (Anthropic: 1.25 × input). */
  cache_write?: number;
}

/** Built-in list prices for common models; `price:` in a model's config overrides them. */
const BUILT_IN: Record<string, Price> = {
  'gpt-4o': { input: 2.5, output: 10, cached_input: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cached_input: 0.075 },
  'gpt-4.1': { input: 2, output: 8, cached_input: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cached_input: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cached_input: 0.025 },
  'gpt-5': { input: 1.25, output: 10, cached_input: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cached_input: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cached_input: 0.005 },
  'o4-mini': { input: 1.1, output: 4.4, cached_input: 0.275 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'deepseek-chat': { input: 0.27, output: 1.1, cached_input: 0.07 },
  'deepseek-reasoner': { input: 0.55, output: 2.19, cached_input: 0.14 },
  'claude-3-5-haiku-latest': { input: 0.8, output: 4, cached_input: 0.08, cache_write: 1 },
  'claude-haiku-4-5': { input: 1, output: 5, cached_input: 0.1, cache_write: 1.25 },
  'claude-sonnet-4-0': { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 },
  'claude-opus-4-0': { input: 15, output: 75, cached_input: 1.5, cache_write: 18.75 },
  'claude-opus-4-1': { input: 15, output: 75, cached_input: 1.5, cache_write: 18.75 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cached_input: 0.025 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cached_input: 0.075 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cached_input: 0.025 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cached_input: 0.31 },
  'gemini-embedding-001': { input: 0.15, output: 0 },
  'moonshot-v1-8k': { input: 0.17, output: 0.17 },
  'glm-4-flash': { input: 0, output: 0 },
  'qwen-plus': { input: 0.4, output: 1.2 },
  'qwen-turbo': { input: 0.05, output: 0.2 },
};

/** Config price, else the built-in one, looked up by model id (OpenRouter's "vendor/model" too). */
export function priceFor(model: string, override?: Price): Price | undefined {
  return override ?? BUILT_IN[model] ?? BUILT_IN[model.slice(model.lastIndexOf('/') + 1)];
}

/** Cost in USD, rounded to 1e-8 (the ledger's precision). Unknown price → 0. */
export function costOf(usage: Usage, price: Price | undefined): number {
  if (!price) return 0;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const written = Math.min(usage.cacheWriteInputTokens ?? 0, usage.inputTokens - cached);
  const fresh = usage.inputTokens - cached - written;
  const usd =
    (fresh * price.input +
      cached * (price.cached_input ?? price.input) +
      written * (price.cache_write ?? price.input) +
      usage.outputTokens * price.output) /
    1e6;
  return Math.round(usd * 1e8) / 1e8;
}
