import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import type { CallLedger, ChatMessage, ChatResponse, LlmCallRecord, ReliableProvider, ToolDefinition } from '@nestclaw/provider';
import type { TurnUsage } from '../agent.events';

export interface ModelCall {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  signal?: AbortSignal;
}

/** One model call of a turn through the ReliableProvider, streamed (text to `onText`) or not. */
export async function callModel(
  provider: ReliableProvider,
  request: ModelCall,
  agent: AgentConfig,
  ledger: CallLedger,
  onText?: (text: string) => void,
): Promise<{ response: ChatResponse; calls: LlmCallRecord[] }> {
  const route = { primary: agent.model, fallback: agent.fallback, signal: request.signal, ledger };
  if (!onText) return provider.chat(request, route);
  for await (const event of provider.chatStream(request, route)) {
    if (event.type === 'text') onText(event.text);
    else if (event.type === 'done') return { response: event.response, calls: event.calls };
  }
  throw new NestclawError('provider_error', 'The model stream ended without a final response');
}

export const sumUsage = (calls: readonly LlmCallRecord[]): TurnUsage => ({
  inputTokens: calls.reduce((a, c) => a + c.usage.inputTokens, 0),
  outputTokens: calls.reduce((a, c) => a + c.usage.outputTokens, 0),
  costUsd: Math.round(calls.reduce((a, c) => a + c.costUsd, 0) * 1e8) / 1e8,
});

/** The client cancelled while the model was answering; carries the call records to store. */
export class CancelledTurnError extends NestclawError {
  constructor(readonly calls: LlmCallRecord[]) {
    super('cancelled', 'The request was cancelled');
  }
}
