/**
 * OpenAI-compatible services differ only in base URL, headers and a few quirks; a model's
 * `provider:` picks one of these, `base_url` overrides the URL and `headers` adds to the headers.
 * Every service listed takes the key as `Authorization: Bearer`.
 */
export interface OpenAiPreset {
  baseUrl: string;
  /** Ask for usage on the last stream chunk (`stream_options.include_usage`); off where it is rejected. */
  streamUsage: boolean;
  /** OpenAI's reasoning models only accept `max_completion_tokens`; most others only `max_tokens`. */
  maxTokensParam: 'max_tokens' | 'max_completion_tokens';
  /** Sent with every request (attribution headers and the like). */
  headers?: Record<string, string>;
}

const base: Omit<OpenAiPreset, 'baseUrl'> = { streamUsage: true, maxTokensParam: 'max_tokens' };

export const OPENAI_COMPATIBLE_PRESETS: Record<string, OpenAiPreset> = {
  openai: { ...base, baseUrl: 'https://api.openai.com/v1', maxTokensParam: 'max_completion_tokens' },
  deepseek: { ...base, baseUrl: 'https://api.deepseek.com/v1' },
  // Moonshot puts stream usage inside the last choice; the adapter reads it there too.
  moonshot: { ...base, baseUrl: 'https://api.moonshot.cn/v1' },
  // GLM always sends usage on the last chunk and does not document stream_options.
  zhipu: { ...base, baseUrl: 'https://open.bigmodel.cn/api/paas/v4', streamUsage: false },
  qwen: { ...base, baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1' },
  // Groq also reports usage as `x_groq.usage`; the adapter reads both.
  groq: { ...base, baseUrl: 'https://api.groq.com/openai/v1' },
  openrouter: { ...base, baseUrl: 'https://openrouter.ai/api/v1', headers: { 'X-Title': 'nestclaw' } },
  vllm: { ...base, baseUrl: 'http://127.0.0.1:8000/v1' },
  lmstudio: { ...base, baseUrl: 'http://127.0.0.1:1234/v1', streamUsage: false },
  'openai-compatible': { ...base, baseUrl: '' },
};
