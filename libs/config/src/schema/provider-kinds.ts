import { nearestName } from './nearest-name';

/**
 * Every value `models.<name>.provider` may take: the OpenAI-compatible presets, then the native
 * adapters. The provider lib builds one of these for each; its factory spec keeps both lists equal.
 */
export const PROVIDER_KINDS = [
  'openai',
  'deepseek',
  'moonshot',
  'zhipu',
  'qwen',
  'groq',
  'openrouter',
  'vllm',
  'lmstudio',
  'openai-compatible',
  'anthropic',
  'gemini',
  'ollama',
] as const;

/** A model provider a plugin adds (`plugin:<id>`, docs/plugins.md): known only once the plugin has loaded. */
export const PLUGIN_PROVIDER = /^plugin:[a-z][a-z0-9-]{0,39}$/;

export const isProviderKind = (name: string): boolean => (PROVIDER_KINDS as readonly string[]).includes(name);

/** Names the typo and what it probably meant, so a misspelt provider is not reported later as "no provider configured". */
export function unknownProviderMessage(name: string): string {
  const guess = nearestName(name, PROVIDER_KINDS);
  return `unknown provider "${name}"${guess ? ` — did you mean "${guess}"?` : '.'} Known: ${PROVIDER_KINDS.join(', ')}`;
}
