import { countTokens, countTokensUncached } from '@nestclaw/common';

export interface Chunk {
  text: string;
  tokenCount: number;
}

export interface ChunkOptions {
  /** Target size of a chunk in model tokens. */
  tokens: number;
  /** Tokens repeated from the end of one chunk at the start of the next, so a fact cut in two stays findable. */
  overlap: number;
}

/**
 * Sentence ends in Chinese and English (kept with their sentence), and line breaks. Chinese has no
 * spaces, so splitting only on whitespace would turn a paragraph into one giant "sentence".
 */
const SENTENCE = /[^\n]*?(?:[。！？!?；;]+|\.(?=\s|$)|\n+|$)/g;

function sentences(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SENTENCE)) {
    if (m[0].trim()) out.push(m[0]);
    // Line breaks between sentences stay with the sentence before them.
    else if (out.length) out[out.length - 1] += m[0];
  }
  return out;
}

/**
 * A sentence longer than a whole chunk is cut into the longest pieces of at most `size` tokens (by
 * code point, so no character is split), each starting about `overlap` tokens before the last one
 * ended. Counted with the gateway's o200k counter (no second tokenizer in memory).
 */
function splitLong(sentence: string, size: number, overlap: number): { text: string; tokens: number }[] {
  const chars = Array.from(sentence);
  const parts: { text: string; tokens: number }[] = [];
  for (let start = 0; start < chars.length;) {
    let lo = 1;
    let hi = chars.length - start;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (countTokensUncached(chars.slice(start, start + mid).join('')) <= size) lo = mid;
      else hi = mid - 1;
    }
    const text = chars.slice(start, start + lo).join('');
    const tokens = countTokensUncached(text);
    parts.push({ text, tokens });
    if (start + lo >= chars.length) break;
    start += Math.max(1, lo - Math.floor((lo * overlap) / Math.max(1, tokens)));
  }
  return parts;
}

/**
 * Packs sentences into chunks of at most `tokens` tokens; each chunk after the first starts with the
 * last sentences of the one before, up to `overlap` tokens.
 */
export function chunkText(text: string, options: ChunkOptions): Chunk[] {
  const size = Math.max(1, options.tokens);
  const overlap = Math.min(Math.max(0, options.overlap), Math.floor(size / 2));
  const units: { text: string; tokens: number }[] = [];
  for (const s of sentences(text)) {
    const tokens = countTokens(s);
    if (tokens > size) units.push(...splitLong(s, size, overlap));
    else units.push({ text: s, tokens });
  }
  const chunks: Chunk[] = [];
  let current: { text: string; tokens: number }[] = [];
  let count = 0;
  const emit = () => {
    const body = current
      .map((u) => u.text)
      .join('')
      .trim();
    if (body) chunks.push({ text: body, tokenCount: count });
  };
  for (const unit of units) {
    if (count + unit.tokens > size && current.length) {
      emit();
      // Carry whole trailing sentences that fit in the overlap budget.
      const carried: typeof current = [];
      let carriedTokens = 0;
      for (let i = current.length - 1; i >= 0 && carriedTokens + current[i].tokens <= overlap; i--) {
        carried.unshift(current[i]);
        carriedTokens += current[i].tokens;
      }
      current = carried;
      count = carriedTokens;
    }
    current.push(unit);
    count += unit.tokens;
  }
  emit();
  return chunks;
}
