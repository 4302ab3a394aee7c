import { z } from 'zod';
import { secret } from './field-types';
import { isProviderKind, PLUGIN_PROVIDER, unknownProviderMessage } from './provider-kinds';

/** USD per 1M tokens. */
const priceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
  /** Prompt-cache writes (Anthropic bills them above the input price). */
  cache_write: z.number().nonnegative().optional(),
});

/** Client-side rate limits; the ReliableProvider routes elsewhere before a 429 happens. */
const limitsSchema = z.strictObject({
  rpm: z.number().int().positive().optional(),
  tpm: z.number().int().positive().optional(),
});

const modelSchema = z.strictObject({
  provider: z
    .string()
    .refine((p) => isProviderKind(p) || PLUGIN_PROVIDER.test(p), { error: (issue) => unknownProviderMessage(String(issue.input)) })
    .default('openai-compatible'),
  model: z.string().min(1),
  base_url: z.url().optional(),
  api_key: secret(z.string()).optional(),
  price: priceSchema.optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** chat models join the fallback chain; embedding models serve the memory index. */
  kind: z.enum(['chat', 'embedding']).default('chat'),
  limits: limitsSchema.optional(),
  /** Extra HTTP headers sent with every request (e.g. OpenRouter's HTTP-Referer). */
  headers: z.record(z.string(), secret(z.string())).optional(),
  /** Embedding size to request, where the backend supports choosing it. */
  dimensions: z.number().int().positive().optional(),
  /** Tokens the model accepts per request (prompt + answer); drives compaction. Unset: 128k. */
  context_window: z.number().int().min(512).optional(),
});

export const modelsSchema = z.record(z.string(), modelSchema).default({});
