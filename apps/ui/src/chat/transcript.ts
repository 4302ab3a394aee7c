import type { ServerFrame } from './gateway-socket';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** One entry of the conversation as the page shows it. */
export type Item =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; streaming: boolean; interrupted?: boolean }
  | { kind: 'tool'; key: string; callId: string; name: string; input: unknown; output?: string; isError?: boolean }
  | {
      kind: 'approval';
      key: string;
      approvalId: string;
      tool: string;
      input: unknown;
      ownerOnly: boolean;
      shapesEveryConversation: boolean;
      reason: string | null;
      status: ApprovalStatus;
    }
  | { kind: 'notice'; key: string; tone: 'info' | 'error'; text: string };

/** A stored message as GET /v1/sessions/:id/messages returns it. */
export interface StoredMessage {
  seq: number;
  turnId: string;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[] | null;
  toolCallId: string | null;
  toolName: string | null;
  status: string;
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The transcript of a stored session: user and assistant text, and each tool call with its result. */
export function fromStored(messages: StoredMessage[]): Item[] {
  const items: Item[] = [];
  // Each call's card by its id: a result finds its card at once, however long the transcript.
  const cards = new Map<string, Extract<Item, { kind: 'tool' }>>();
  for (const m of messages) {
    const key = `m${m.seq}`;
    if (m.role === 'user') items.push({ kind: 'user', key, text: m.content });
    if (m.role === 'assistant') {
      if (m.content) items.push({ kind: 'assistant', key, text: m.content, streaming: false, interrupted: m.status === 'interrupted' });
      for (const call of m.toolCalls ?? []) {
        const card = {
          kind: 'tool' as const,
          key: `${key}-${call.id}`,
          callId: call.id,
          name: call.name,
          input: parsedArguments(call.arguments),
        };
        cards.set(call.id, card);
        items.push(card);
      }
    }
    if (m.role === 'tool' && m.toolCallId) {
      const card = cards.get(m.toolCallId);
      if (card) card.output = m.content;
    }
  }
  return items;
}

/** Whether the session's last turn is still running (its user message not yet settled). */
export const turnRunning = (messages: StoredMessage[]) => [...messages].reverse().find((m) => m.role === 'user')?.status === 'pending';

const lastStreaming = (items: Item[]) => {
  const last = items[items.length - 1];
  return last?.kind === 'assistant' && last.streaming ? last : undefined;
};
const settle = (items: Item[]) => items.map((i) => (i.kind === 'assistant' && i.streaming ? { ...i, streaming: false } : i));

/** The transcript after one frame of the running chat. Pure: returns a new array, never edits `items`. */
export function applyFrame(items: Item[], frame: ServerFrame, errorText: (code: string, message: string) => string): Item[] {
  const key = `${frame.id}-${items.length}`;
  switch (frame.type) {
    case 'token': {
      const open = lastStreaming(items);
      if (!open) return [...items, { kind: 'assistant', key, text: String(frame.text), streaming: true }];
      return [...items.slice(0, -1), { ...open, text: open.text + String(frame.text) }];
    }
    case 'tool_call':
      return [...settle(items), { kind: 'tool', key, callId: String(frame.callId), name: String(frame.name), input: frame.input }];
    case 'tool_result':
      return items.map((i) =>
        i.kind === 'tool' && i.callId === frame.callId ? { ...i, output: String(frame.output), isError: frame.isError === true } : i,
      );
    case 'approval_required':
      return [
        ...settle(items),
        {
          kind: 'approval',
          key,
          approvalId: String(frame.approvalId),
          tool: String(frame.tool),
          input: frame.input,
          ownerOnly: frame.ownerOnly === true,
          shapesEveryConversation: frame.shapesEveryConversation === true,
          reason: typeof frame.reason === 'string' ? frame.reason : null,
          status: 'pending',
        },
      ];
    case 'done': {
      const settled = settle(items);
      const sinceUser = settled.slice(settled.map((i) => i.kind).lastIndexOf('user') + 1);
      // Without streamed tokens (a cached or non-streaming reply) the final reply is the answer.
      const hasText = sinceUser.some((i) => i.kind === 'assistant');
      if (hasText || !frame.reply) return settled;
      return [...settled, { kind: 'assistant', key, text: String(frame.reply), streaming: false }];
    }
    case 'error':
      return [...settle(items), { kind: 'notice', key, tone: 'error', text: errorText(String(frame.code), String(frame.message)) }];
    default:
      return items;
  }
}

export function setApprovalStatus(items: Item[], approvalId: string, status: ApprovalStatus): Item[] {
  return items.map((i) => (i.kind === 'approval' && i.approvalId === approvalId ? { ...i, status } : i));
}
