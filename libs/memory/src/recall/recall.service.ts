import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { MemoryEmbedder } from '../embedding/memory-embedder';
import { LanceIndex } from '../index/lance.index';
import { fuseRrf, RankedLeg } from '../search/rrf';
import { MemoryRepository } from '../store/memory.repository';
import type { HydratedChunk, MemorySource } from '../store/memory.types';
import { queryTerms } from '../text/tokenizer';

export type RecallMode = 'keyword' | 'vector' | 'hybrid';

export interface RecallQuery {
  scope: string;
  agentId: string;
  query: string;
  topK: number;
  mode?: RecallMode;
  /** Time the query embedding may take (default `memory.embedding_timeout`). */
  embeddingBudgetMs?: number;
}

export interface RecallHit {
  /** The memory's id (what forget takes). */
  id: string;
  chunkId: string;
  score: number;
  /** The matching chunk's text. */
  content: string;
  source: MemorySource;
  sourceKey: string | null;
  createdAt: string;
  superseded: boolean;
}

export interface RecallOutcome {
  results: RecallHit[];
  /** The mode that actually ran. */
  mode: RecallMode;
  /** Why a vector or hybrid request ran keyword-only. */
  fallback?: string;
  /** The index was missing: the keyword leg ran on Postgres. */
  degraded?: boolean;
}

/** A memory replaced by a newer one ranks below it. */
const SUPERSEDED_FACTOR = 0.5;

/**
 * Hybrid recall: BM25 over the shared tokenizer's terms and cosine over vectors, each top-N, fused
 * with RRF (k and per-leg weights from `memory.fusion`). Hits are re-read from Postgres, so a
 * forgotten memory never comes back even when the index has not caught up, and no other person's
 * row can slip through. An embedding failure or timeout falls back to keywords for that query.
 */
@Injectable()
export class RecallService {
  constructor(
    private readonly config: ConfigService,
    private readonly index: LanceIndex,
    private readonly memories: MemoryRepository,
    private readonly embedder: MemoryEmbedder,
  ) {}

  async recall(q: RecallQuery): Promise<RecallOutcome> {
    const cfg = this.config.get().memory;
    const requested = q.mode ?? cfg.recall.mode;
    const n = Math.max(cfg.fusion.candidates, q.topK * 2);
    const terms = queryTerms(q.query);
    let fallback: string | undefined;
    let vectorIds: string[] = [];
    const wantVector = requested !== 'keyword';
    if (wantVector) {
      if (!this.embedder.active()) fallback = 'keyword-only: no embedding model configured';
      else if (!this.index.version?.dims) fallback = 'keyword-only: the index has no vectors (yet)';
    }
    const keywordLeg =
      requested !== 'vector' || !!fallback ? this.keyword(q, terms, n) : Promise.resolve({ ids: [] as string[], degraded: false });
    if (wantVector && !fallback) {
      const embedded = await this.embedder.embedQuery(q.query, q.embeddingBudgetMs ?? cfg.embedding_timeout);
      if (embedded.vector) {
        try {
          vectorIds = await this.index.vector(q.scope, q.agentId, embedded.vector, n);
        } catch (e) {
          fallback = `keyword-only: vector search failed (${(e as Error).message})`;
        }
      } else {
        fallback = `keyword-only: ${embedded.error}`;
      }
    }
    // A vector request whose vector leg failed still answers, from keywords.
    const keyword = requested === 'vector' && fallback ? await this.keyword(q, terms, n) : await keywordLeg;
    const mode: RecallMode = fallback ? 'keyword' : requested;
    const legs: RankedLeg[] = [];
    if (mode !== 'vector') legs.push({ ids: keyword.ids, weight: cfg.fusion.keyword_weight || 1 });
    if (mode !== 'keyword') legs.push({ ids: vectorIds, weight: cfg.fusion.vector_weight || 1 });
    const fused = fuseRrf(legs, cfg.fusion.k);
    const results = await this.hydrate(q, fused);
    return { results, mode, ...(fallback && requested !== 'keyword' ? { fallback } : {}), ...(keyword.degraded ? { degraded: true } : {}) };
  }

  private async keyword(q: RecallQuery, terms: string[], n: number): Promise<{ ids: string[]; degraded: boolean }> {
    if (this.index.ready) return { ids: this.index.keyword(q.scope, q.agentId, terms, n), degraded: false };
    return { ids: await this.memories.keywordFallback(q.scope, q.agentId, terms, n), degraded: true };
  }

  /** Truth from Postgres, best chunk per memory, superseded memories demoted. */
  private async hydrate(q: RecallQuery, fused: { id: string; score: number }[]): Promise<RecallHit[]> {
    const rows = await this.memories.hydrate(
      fused.map((f) => f.id),
      q.scope,
      q.agentId,
    );
    const byChunk = new Map<string, HydratedChunk>(rows.map((r) => [r.chunkId, r]));
    const best = new Map<string, RecallHit>();
    for (const f of fused) {
      const row = byChunk.get(f.id);
      if (!row || best.has(row.memoryId)) continue;
      best.set(row.memoryId, {
        id: row.memoryId,
        chunkId: row.chunkId,
        score: row.superseded ? f.score * SUPERSEDED_FACTOR : f.score,
        content: row.text,
        source: row.source,
        sourceKey: row.sourceKey,
        createdAt: new Date(row.createdAt).toISOString(),
        superseded: row.superseded,
      });
    }
    return [...best.values()].sort((a, b) => b.score - a.score || b.createdAt.localeCompare(a.createdAt)).slice(0, q.topK);
  }
}
