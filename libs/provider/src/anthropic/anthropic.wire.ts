import type {
  ContentBlockParam,
  MessageParam,
  StopReason,
  TextBlockParam,
  Tool,
  Usage as AnthropicUsage,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatMessage, FinishReason, ToolDefinition, Usage } from '../model-provider.port';

/** Anthropic takes the system prompt apart from the turns; it is marked cacheable. */
export function systemOf(messages: ChatMessage[]): TextBlockParam[] | undefined {
  const text = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  return text ? [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] : undefined;
}

function parseInput(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { _raw: args };
  }
}

/**
 * Converts the neutral transcript to Messages API turns: tool results travel as `tool_result`
 * blocks in a user turn, and consecutive turns of one role are merged (the API wants them alternating).
 */
export function turnsOf(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) (last.content as ContentBlockParam[]).push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        break;
      case 'user':
        push('user', [{ type: 'text', text: m.content }]);
        break;
      case 'assistant':
        push('assistant', [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: parseInput(c.arguments) })),
        ]);
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
        break;
    }
  }
  return out;
}

export const toolOf = (t: ToolDefinition): Tool => ({
  name: t.name,
  description: t.description,
  input_schema: { type: 'object', ...t.parameters } as Tool['input_schema'],
});

export function finishOf(reason: StopReason | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
    case null:
    case undefined:
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

type UsageLike = Pick<AnthropicUsage, 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens'>;

/** Anthropic's input_tokens exclude cache reads and writes; ours include them. */
export function usageOf(u: Partial<UsageLike> | null | undefined): Usage {
  const read = u?.cache_read_input_tokens ?? 0;
  const write = u?.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (u?.input_tokens ?? 0) + read + write,
    outputTokens: u?.output_tokens ?? 0,
    cachedInputTokens: read,
    cacheWriteInputTokens: write,
  };
}
