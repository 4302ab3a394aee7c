import type { ChatMessage } from '@nestclaw/provider';
import type { StoredMessage } from '../session/session.types';

/**
 * Turns stored transcript rows into a valid provider conversation. A crash can leave an assistant
 * tool-call message without all of its results; providers reject that, so such calls are dropped
 * (the assistant text, if any, is kept) along with results whose call is gone.
 */
export function historyToMessages(rows: readonly StoredMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    switch (row.role) {
      case 'user':
        out.push({ role: 'user', content: row.content });
        break;
      case 'assistant': {
        const calls = row.toolCalls ?? [];
        if (calls.length === 0) {
          if (row.content) out.push({ role: 'assistant', content: row.content });
          break;
        }
        const results = new Map<string, StoredMessage>();
        for (let j = i + 1; j < rows.length && rows[j].role === 'tool'; j++) {
          if (rows[j].toolCallId) results.set(rows[j].toolCallId!, rows[j]);
        }
        if (calls.every((c) => results.has(c.id))) {
          out.push({ role: 'assistant', content: row.content, toolCalls: calls });
          for (const c of calls) {
            const r = results.get(c.id)!;
            out.push({ role: 'tool', content: r.content, toolCallId: c.id, name: r.toolName ?? undefined });
          }
        } else if (row.content) {
          out.push({ role: 'assistant', content: row.content });
        }
        while (i + 1 < rows.length && rows[i + 1].role === 'tool') i++;
        break;
      }
      default:
        // system rows are not replayed; orphan tool rows are skipped
        break;
    }
  }
  return out;
}

export function buildPrompt(systemPrompt: string, history: readonly StoredMessage[], userMessage: string): ChatMessage[] {
  return [{ role: 'system', content: systemPrompt }, ...historyToMessages(history), { role: 'user', content: userMessage }];
}
