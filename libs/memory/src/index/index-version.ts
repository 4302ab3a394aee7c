import { TOKENIZER_VERSION } from '../text/tokenizer';

/**
 * Bump when the index's row layout changes (3: search columns only; recall reads text from Postgres;
 * 4: same rows, rebuilt once so the rows of memories forgotten before forget erased leave the files).
 */
export const INDEX_SCHEMA_VERSION = 4;

/** What an index was built with; any difference from what the process expects means a rebuild. */
export interface IndexVersion {
  schema: number;
  tokenizer: string;
  /** Embedding identity (config name:model:dimensions), or null for a keyword-only index. */
  embedding: string | null;
}

export interface StoredIndexVersion extends IndexVersion {
  /** Vector size found when the index was built (null: keyword-only). */
  dims: number | null;
  /** The LanceDB table holding this build. */
  table: string;
  builtAt: string;
}

export function expectedVersion(embeddingKey: string | undefined): IndexVersion {
  return { schema: INDEX_SCHEMA_VERSION, tokenizer: TOKENIZER_VERSION, embedding: embeddingKey ?? null };
}

export function sameVersion(a: IndexVersion, b: IndexVersion): boolean {
  return a.schema === b.schema && a.tokenizer === b.tokenizer && a.embedding === b.embedding;
}

export function describeVersion(v: IndexVersion): string {
  return `schema ${v.schema}, tokenizer ${v.tokenizer}, ${v.embedding ? `embeddings ${v.embedding}` : 'keyword-only'}`;
}
