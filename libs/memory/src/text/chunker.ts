import type * as GptTokenizer from 'gpt-tokenizer';

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

/**
 * The o200k encoder (the one @nestclaw/common counts with), loaded on first use like countTokens
 * there: parsing its ranks costs ~0.35 s that CLI commands and start-up should not pay.
 */
let tokenizer: Pick<typeof GptTokenizer, 'encode' | 'decode'> | undefined;
function o200k(): Pick<typeof GptTokenizer, 'encode' | 'decode'> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (tokenizer ??= require('gpt-tokenizer') as typeof GptTokenizer);
}

function sentences(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SENTENCE)) {
    if (m[0].trim()) out.push(m[0]);
    // Line breaks between sentences stay with the sentence before them.
    else if (out.length) out[out.length - 1] += m[0];
  }
  return out;
}

/** A sentence longer than a whole chunk is cut at token boundaries, each piece overlapping the one before. */
function splitLong(sentence: string, tokens: number[], size: number, overlap: number): { text: string; tokens: number }[] {
  const parts: { text: string; tokens: number }[] = [];
  for (let i = 0; i < tokens.length; i += size - overlap) {
    const slice = tokens.slice(i, i + size);
    parts.push({ text: o200k().decode(slice), tokens: slice.length });
    if (i + size >= tokens.length) break;
  }
  return parts.length ? parts : [{ text: sentence, tokens: 0 }];
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
    const t = o200k().encode(s);
    if (t.length > size) units.push(...splitLong(s, t, size, overlap));
    else units.push({ text: s, tokens: t.length });
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
