import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOKENIZER_VERSION } from '../text/tokenizer';
import { isTermsTable, termsFile } from './terms.table';

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
  /** The LanceDB table holding this build, or its terms file (`terms_…`, keyword-only; terms.table.ts). */
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

/**
 * The build `dir`'s index-version.json names, if it can serve: undefined when there is none, it has
 * another row layout, or its table is gone (a rebuild follows; keyword recall runs on Postgres
 * meanwhile). Reads files only: LanceDB is not loaded. Throws on an unreadable file.
 */
export function readStoredVersion(dir: string): StoredIndexVersion | undefined {
  const file = join(dir, 'index-version.json');
  if (!existsSync(file)) return undefined;
  const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredIndexVersion;
  if (stored.schema !== INDEX_SCHEMA_VERSION) return undefined;
  // A local LanceDB table is the folder <name>.lance.
  const data = isTermsTable(stored.table) ? termsFile(dir, stored.table) : join(dir, `${stored.table}.lance`);
  return existsSync(data) ? stored : undefined;
}

/** Replaces index-version.json in one rename: a start reads the old build or the new one, never half a file. */
export function writeStoredVersion(dir: string, stored: StoredIndexVersion): void {
  const file = join(dir, 'index-version.json');
  writeFileSync(`${file}.tmp`, JSON.stringify(stored, null, 2));
  renameSync(`${file}.tmp`, file);
}
