import { z } from 'zod';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const content = z.union([z.string(), z.array(z.union([textPart, z.looseObject({ type: z.string() })]))]).nullish();

/** The model ids this API serves: `nestclaw` (default routing) or `nestclaw/<agentId>`. */
export const MODEL_ID_PATTERN = /^nestclaw(\/[A-Za-z0-9._-]+)?$/;

export const chatCompletionsSchema = z.object({
  model: z.string().regex(MODEL_ID_PATTERN, 'must be "nestclaw" or "nestclaw/<agentId>"'),
  messages: z
    .array(z.looseObject({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']), content }))
    .min(1, 'must contain at least one message'),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  user: z.string().min(1).max(200).optional(),
});

export type ChatCompletionsDto = z.output<typeof chatCompletionsSchema>;

/** Text of an OpenAI message content (string or text parts). */
export function textOf(c: ChatCompletionsDto['messages'][number]['content']): string {
  if (!c) return '';
  if (typeof c === 'string') return c;
  return c.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}
