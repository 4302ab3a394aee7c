import { O200kCounter } from './o200k-counter';

let o200k: O200kCounter | undefined;

/** Loaded on first use: reading the o200k ranks costs ~0.1 s, which CLI commands should not pay. */
function countO200k(text: string): number {
  o200k ??= O200kCounter.load();
  return o200k.count(text);
}

/**
 * Loads the tokenizer now. The gateway calls it at start-up, before any request or query is in
 * flight: loaded lazily by a turn, the parse blocked the event loop mid-turn (0.35 s idle, several
 * seconds on a loaded machine), long enough for in-flight queries to hit their client-side timeout
 * and the database to be reported down. Held as typed arrays (see O200kCounter), it costs ~5 MB.
 */
export function preloadTokenizer(): void {
  countO200k(' ');
}

/**
 * Token counts for budgets (prompt layers, compaction, estimates before a call). A real BPE
 * tokenizer (o200k, the GPT-4o family): characters ÷ 4 undercounts Chinese by 2–3×, which is
 * exactly where budgets must not be wrong. Other vendors' tokenizers differ by a few percent;
 * budgets keep a margin for that.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length < 64) return countO200k(text);
  const hit = cache.get(text);
  if (hit !== undefined) {
    // Refresh: Map iteration order is insertion order, so the oldest entry is evicted first.
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const n = countO200k(text);
  cache.set(text, n);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return n;
}

/**
 * Every turn re-counts the same history, system prompt and tool definitions (about 9 ms per
 * 24k characters here): remember recent counts. Stored messages never change, so a hit is exact.
 */
const CACHE_ENTRIES = 20_000;
const cache = new Map<string, number>();

/** Per-message framing the chat formats add (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Tokens of a chat request: each message's content plus framing, plus the JSON of the tool definitions. */
export function countChatTokens(messages: readonly { content: string | null }[], tools?: readonly unknown[]): number {
  let n = 3;
  for (const m of messages) n += countTokens(m.content ?? '') + MESSAGE_OVERHEAD_TOKENS;
  if (tools?.length) n += countTokens(JSON.stringify(tools));
  return n;
}
