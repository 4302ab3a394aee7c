import { Injectable } from '@nestjs/common';
import { MemoryEmbedder } from '../embedding/memory-embedder';
import { describeVersion } from './index-version';
import { ActiveIndex } from './active-index';
import { ReindexProgress, ReindexService } from './reindex.service';

/** The derived index as an operator sees it: search mode, version against the expected one, rebuild progress. */
export interface IndexState {
  /** "hybrid" with an embedding model, else "keyword-only". */
  mode: 'hybrid' | 'keyword-only';
  indexedChunks: number;
  index: { ready: boolean; version: string | null; expected: string; current: boolean; builtAt: string | null };
  embedding: { model: string | null; lastError: { at: string; message: string } | null };
  reindex: ReindexProgress;
}

/** Reads the state of the derived index and of the embedding model that feeds it. */
@Injectable()
export class IndexStateReader {
  constructor(
    private readonly indexes: ActiveIndex,
    private readonly reindex: ReindexService,
    private readonly embedder: MemoryEmbedder,
  ) {}

  keywordOnly(): boolean {
    return !(this.embedder.active() && this.indexes.current.version?.dims);
  }

  async read(): Promise<IndexState> {
    const index = this.indexes.current;
    const indexed = await index.rowCount().catch(() => 0);
    const active = this.embedder.active();
    const expected = this.reindex.expected();
    const v = index.version;
    return {
      mode: this.keywordOnly() ? 'keyword-only' : 'hybrid',
      indexedChunks: indexed,
      index: {
        ready: index.ready,
        version: v ? describeVersion(v) : null,
        expected: describeVersion(expected),
        current: index.matches(expected),
        builtAt: v?.builtAt ?? null,
      },
      embedding: { model: active?.key ?? null, lastError: this.embedder.lastError ?? null },
      reindex: this.reindex.progress,
    };
  }
}
