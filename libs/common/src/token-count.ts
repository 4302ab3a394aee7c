import { MemoByIdentities } from './memo-by-identities';
import { O200kCounter } from './o200k-counter';

let o200k: O200kCounter | undefined;

/** Loaded on first use: reading the o200k ranks costs ~0.1 s, which CLI commands should not pay. */
function countO200k(text: string): number {
  o200k ??= O200kCounter.load();
  return o200k.count(text);
}

/** countTokens without the cache, for texts counted once (cutting a long sentence into pieces). */
export function countTokensUncached(text: string): number {
  return text ? countO200k(text) : 0;
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
  let n = recent.get(text);
  if (n !== undefined) return n;
  n = older.get(text) ?? countO200k(text);
  recent.set(text, n);
  recentChars += text.length;
  if (recent.size >= GENERATION_ENTRIES || recentChars >= GENERATION_CHARS) {
    older = recent;
    recent = new Map();
    recentChars = 0;
  }
  return n;
}

/**
 * Every turn re-counts the same history, system prompt, tool definitions and recalled memories
 * (a 40-message history of short lines alone took ~0.5 ms a count, twice a turn: compaction's fit
 * and the provider's estimate): remember recent counts, short texts included. Stored messages never
 * change, so a hit is exact. Two generations instead of an LRU: a hit costs one Map lookup (no
 * delete and re-insert), a text used in the last generation is carried into the current one, and
 * the older generation is dropped whole once the current one holds GENERATION_ENTRIES texts or
 * GENERATION_CHARS characters (so at most ~2 MB-4 MB of text is kept, however long the texts).
 */
const GENERATION_ENTRIES = 10_000;
const GENERATION_CHARS = 1_000_000;
let recent = new Map<string, number>();
let older = new Map<string, number>();
let recentChars = 0;

/** Per-message framing the chat formats add (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Tokens of a chat request: each message's content plus framing, plus the JSON of the tool definitions. */
export function countChatTokens(messages: readonly { content: string | null }[], tools?: readonly unknown[]): number {
  let n = 3;
  for (const m of messages) n += countTokens(m.content ?? '') + MESSAGE_OVERHEAD_TOKENS;
  if (tools?.length) n += toolTokens(tools);
  return n;
}

/**
 * Tokens of the tool definitions' JSON. A turn's list is a new array of the registry's definition
 * objects, which are built once and never changed: found by their identities, the JSON is not
 * rebuilt every turn (~30 µs for 3 KB). Anything else (plain values) is counted from its JSON.
 */
const toolsTokens = new MemoByIdentities((tools) => countTokens(JSON.stringify(tools)));

function toolTokens(tools: readonly unknown[]): number {
  return toolsTokens.get(tools);
}
