import type { ChatMessage, FinishReason, ToolCall, ToolDefinition, Usage } from '../model-provider.port';
import type { HttpFailure } from '../provider.errors';

/** The parts of Ollama's native /api/chat wire format nestclaw uses. */
export interface OllamaToolCall {
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> | string };
}

export interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
}

export interface OllamaChatChunk {
  model?: string;
  message?: OllamaMessage;
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

function parseArgs(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { _raw: args };
  }
}

export function messagesOf(messages: ChatMessage[]): OllamaMessage[] {
  const names = new Map<string, string>();
  return messages.map((m): OllamaMessage => {
    switch (m.role) {
      case 'assistant':
        for (const c of m.toolCalls ?? []) names.set(c.id, c.name);
        return m.toolCalls?.length
          ? {
              role: 'assistant',
              content: m.content,
              tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: parseArgs(c.arguments) } })),
            }
          : { role: 'assistant', content: m.content };
      case 'tool':
        return { role: 'tool', content: m.content, tool_name: m.name ?? names.get(m.toolCallId) };
      default:
        return { role: m.role, content: m.content };
    }
  });
}

export const toolsOf = (tools: ToolDefinition[]) =>
  tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

export function callsOf(message: OllamaMessage | undefined, nextId: () => string): ToolCall[] {
  return (message?.tool_calls ?? []).map((c) => ({
    id: c.id ?? nextId(),
    name: c.function.name,
    arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}),
  }));
}

export const usageOf = (c: OllamaChatChunk): Usage => ({
  inputTokens: c.prompt_eval_count ?? 0,
  outputTokens: c.eval_count ?? 0,
  cachedInputTokens: 0,
});

export function finishOf(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return 'tool_calls';
  if (reason === 'length') return 'length';
  return !reason || reason === 'stop' ? 'stop' : 'other';
}

/** Ollama errors are `{ "error": "..." }`; a missing model is a 404 that no retry will fix. */
export function parseOllamaError(_status: number, body: unknown): Partial<HttpFailure> {
  const message = (body as { error?: string } | undefined)?.error;
  return { message };
}
