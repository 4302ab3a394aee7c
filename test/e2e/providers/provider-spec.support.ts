import type { ChatMessage, ChatStreamEvent, ToolDefinition } from '@nestclaw/provider';

/** The tool every adapter spec offers the fake model. */
export const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** A system prompt and one user message. */
export const ask = (text: string): ChatMessage[] => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: text },
];
