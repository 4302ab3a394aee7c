import type { ChatMessage } from '@nestclaw/provider';
import type { Approval } from '@nestclaw/tool';
import type { StoredMessage } from '../session/session.types';
import { historyToMessages } from './prompt.builder';
import type { StepInput } from './turn.types';

export type ResumePoint = { ok: true; messages: ChatMessage[]; iteration: number; step: StepInput } | { ok: false; why: string };

/**
 * Rebuilds a paused turn from its stored rows: the prompt up to the assistant message whose tool
 * call waited, the results already stored for that message, and the decision to apply.
 */
export function resumePoint(a: Approval, systemPrompt: string, history: StoredMessage[], turn: StoredMessage[]): ResumePoint {
  const user = turn[0];
  if (!user || user.role !== 'user' || user.status !== 'pending') return { ok: false, why: `turn ${a.turnId} is no longer open` };
  let ask = -1;
  for (let i = turn.length - 1; i >= 0 && ask < 0; i--) {
    if (turn[i].role === 'assistant' && turn[i].toolCalls?.some((c) => c.id === a.toolCallId)) ask = i;
  }
  if (ask < 0) return { ok: false, why: `turn ${a.turnId} has no tool call ${a.toolCallId}` };
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const row of turn.slice(ask + 1)) {
    if (row.role === 'tool' && row.toolCallId) results.set(row.toolCallId, { content: row.content, isError: row.status === 'error' });
  }
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt },
    ...historyToMessages(history),
    ...historyToMessages(turn.slice(0, ask)),
  ];
  const iteration = turn.slice(0, ask + 1).filter((m) => m.role === 'assistant' && m.toolCalls?.length).length + 1;
  return {
    ok: true,
    messages,
    iteration,
    step: { content: turn[ask].content, calls: turn[ask].toolCalls ?? [], llmCalls: [], stored: { results }, decided: a },
  };
}
