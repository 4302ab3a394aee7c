import { Injectable } from '@nestjs/common';
import { ActiveEmbedder, MemoryEmbedder } from '../embedding/memory-embedder';
import type { IndexableChunk } from '../store/memory.types';
import { indexTerms } from '../text/tokenizer';
import type { IndexRow } from './index-arrow';

export interface BuiltRows {
  rows: IndexRow[];
  /** Set when vectors could not be computed: the rows are still searchable by keyword. */
  vectorError?: string;
}

/** Chunks from Postgres → index rows: terms from the shared tokenizer, vectors from the cache or the embedder. */
@Injectable()
export class IndexRowBuilder {
  constructor(private readonly embedder: MemoryEmbedder) {}

  async build(chunks: IndexableChunk[], active: ActiveEmbedder | undefined): Promise<BuiltRows> {
    let vectors: Map<string, ArrayLike<number>> | undefined;
    let vectorError: string | undefined;
    if (active && chunks.length) {
      try {
        vectors = await this.embedder.embedForIndex(
          active,
          chunks.map((c) => ({ hash: c.contentHash, text: c.text })),
        );
      } catch (e) {
        vectorError = `embedding failed: ${(e as Error).message}`;
        this.embedder.lastError = { at: new Date().toISOString(), message: vectorError };
      }
    }
    const rows = chunks.map((c) => ({
      chunkId: c.chunkId,
      memoryId: c.memoryId,
      scope: c.scope,
      agentId: c.agentId,
      terms: indexTerms(c.text).join(' '),
      vector: vectors?.get(c.contentHash) ?? null,
      text: c.text,
    }));
    return { rows, vectorError };
  }
}
