import { countTokens } from '@nestclaw/common';
import type { StoredMessage } from '../session/session.types';

/** One transcript message as the summariser reads it. */
export interface SummaryItem {
  seq: number;
  text: string;
  tokens: number;
  /** Too large to summarise: only a note that it existed goes to the model. */
  oversized: boolean;
}

const preview = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 80);

/**
 * Transcript rows → summariser input lines. A message larger than `maxItemTokens` becomes a
 * one-line note (who, how large, how it starts): the summary then at least knows it was there.
 */
export function toSummaryItems(rows: readonly StoredMessage[], maxItemTokens: number): SummaryItem[] {
  return rows.map((r) => {
    const who = r.role === 'tool' ? `tool ${r.toolName ?? ''}`.trim() : r.role;
    const calls = r.toolCalls?.length ? ` [called ${r.toolCalls.map((c) => c.name).join(', ')}]` : '';
    const body = r.content + calls;
    const tokens = countTokens(body);
    if (tokens > maxItemTokens) {
      const text = `#${r.seq} ${who}: [a large message of about ${tokens} tokens was here, not summarised; it began: "${preview(r.content)}"]`;
      return { seq: r.seq, text, tokens: countTokens(text), oversized: true };
    }
    const text = `#${r.seq} ${who}: ${body}`;
    return { seq: r.seq, text, tokens: tokens + 4, oversized: false };
  });
}

/**
 * Splits items into contiguous parts of roughly equal token share, none above `maxPartTokens`
 * (unless a single item is), so each part fits one summarisation request.
 */
export function splitByTokenShare<T extends { tokens: number }>(items: readonly T[], maxPartTokens: number): T[][] {
  if (items.length === 0) return [];
  const total = items.reduce((n, i) => n + i.tokens, 0);
  const parts = Math.max(1, Math.ceil(total / maxPartTokens));
  const target = total / parts;
  const out: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const full = size + item.tokens > maxPartTokens || (out.length < parts - 1 && size >= target);
    if (current.length > 0 && full) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += item.tokens;
  }
  out.push(current);
  return out;
}
