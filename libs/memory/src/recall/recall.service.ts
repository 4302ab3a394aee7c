import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { recordMemoryRecall } from '@nestclaw/observability';
import { MemoryEmbedder } from '../embedding/memory-embedder';
import type { KeywordHit } from '../index/keyword.index';
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
/** Candidates read from Postgres per result wanted: room for forgotten ones and superseded ones falling back. */
const READ_PER_RESULT = 3;

interface Candidate {
  chunkId: string;
  memoryId: string;
  score: number;
}

/**
 * Hybrid recall: BM25 over the shared tokenizer's terms and cosine over vectors, each top-N, fused
 * with RRF (k and per-leg weights from `memory.fusion`). Both legs filter by person and agent inside
 * the index (the keyword scorer skips other owners' postings; the vector query prefilters on the
 * bitmap-indexed scope and agent columns). The best candidates are then read from Postgres by chunk
 * id (primary key), which also drops forgotten memories and marks superseded ones, so a forget is
 * immediate even when the index worker is behind. At 100k chunks this one read (~0.3 ms) replaced
 * a liveness check plus a LanceDB lookup by id (~3 ms of CPU).
 * An embedding failure or timeout falls back to keywords for that query.
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
    const started = performance.now();
    const outcome = await this.run(q);
    recordMemoryRecall(outcome.mode, (performance.now() - started) / 1000, outcome.results.length);
    return outcome;
  }

  private async run(q: RecallQuery): Promise<RecallOutcome> {
    const cfg = this.config.get().memory;
    const requested = q.mode ?? cfg.recall.mode;
    const n = Math.max(cfg.fusion.candidates, q.topK * 2);
    const terms = queryTerms(q.query);
    // The first search after start-up opens the index (LanceDB is not loaded before).
    await this.index.load();
    if (!this.index.ready) return this.degraded(q, terms, n, requested);
    let fallback: string | undefined;
    const wantVector = requested !== 'keyword';
    if (wantVector) {
      if (!this.embedder.active()) fallback = 'keyword-only: no embedding model configured';
      else if (!this.index.version?.dims) fallback = 'keyword-only: the index has no vectors (yet)';
    }
    // The keyword leg is in-process and synchronous.
    let keywordHits = requested !== 'vector' ? this.index.keyword(q.scope, q.agentId, terms, n) : [];
    let vectorHits: KeywordHit[] = [];
    if (wantVector && !fallback) {
      const embedded = await this.embedder.embedQuery(q.query, q.embeddingBudgetMs ?? cfg.embedding_timeout);
      if (embedded.vector) {
        try {
          vectorHits = await this.index.vector(q.scope, q.agentId, embedded.vector, n);
        } catch (e) {
          fallback = `keyword-only: vector search failed (${(e as Error).message})`;
        }
      } else {
        fallback = `keyword-only: ${embedded.error}`;
      }
    }
    const mode: RecallMode = fallback ? 'keyword' : requested;
    // A vector request whose vector leg failed still answers, from keywords.
    if (requested === 'vector' && fallback) keywordHits = this.index.keyword(q.scope, q.agentId, terms, n);
    const legs: RankedLeg[] = [];
    if (mode !== 'vector') legs.push({ ids: keywordHits.map((h) => h.chunkId), weight: cfg.fusion.keyword_weight });
    if (mode !== 'keyword') legs.push({ ids: vectorHits.map((h) => h.chunkId), weight: cfg.fusion.vector_weight });
    const memoryOf = new Map<string, string>();
    for (const h of keywordHits) memoryOf.set(h.chunkId, h.memoryId);
    for (const h of vectorHits) memoryOf.set(h.chunkId, h.memoryId);
    const candidates = bestChunkPerMemory(fuseRrf(legs, cfg.fusion.k), memoryOf);
    const results = await this.fromPostgres(q, candidates);
    return { results, mode, ...(fallback && requested !== 'keyword' ? { fallback } : {}) };
  }

  /**
   * Candidates → results: the best `READ_PER_RESULT × topK` are read from Postgres (the truth: a
   * forgotten memory is gone, a superseded one ranks below its replacement), re-sorted, cut to top-K.
   */
  private async fromPostgres(q: RecallQuery, candidates: Candidate[]): Promise<RecallHit[]> {
    const head = candidates.slice(0, q.topK * READ_PER_RESULT);
    if (!head.length) return [];
    const rows = await this.memories.hydrate(
      head.map((c) => c.chunkId),
      q.scope,
      q.agentId,
    );
    const byChunk = new Map(rows.map((r) => [r.chunkId, r]));
    return head
      .filter((c) => byChunk.has(c.chunkId))
      .map((c) => toHit(byChunk.get(c.chunkId)!, c.score))
      .sort((a, b) => b.score - a.score || b.createdAt.localeCompare(a.createdAt))
      .slice(0, q.topK);
  }

  /** No index yet (first build running): keywords straight from Postgres, slower but working. */
  private async degraded(q: RecallQuery, terms: string[], n: number, requested: RecallMode): Promise<RecallOutcome> {
    const ids = await this.memories.keywordFallback(q.scope, q.agentId, terms, n);
    const rows = await this.memories.hydrate(ids, q.scope, q.agentId);
    const byChunk = new Map<string, HydratedChunk>(rows.map((r) => [r.chunkId, r]));
    const best = new Map<string, RecallHit>();
    ids.forEach((id, i) => {
      const row = byChunk.get(id);
      if (!row || best.has(row.memoryId)) return;
      best.set(row.memoryId, toHit(row, 1 / (60 + i + 1)));
    });
    const results = [...best.values()].sort((a, b) => b.score - a.score).slice(0, q.topK);
    return {
      results,
      mode: 'keyword',
      degraded: true,
      ...(requested !== 'keyword' ? { fallback: 'keyword-only: the memory index is being built' } : {}),
    };
  }
}

/** A Postgres row as a recall result. */
function toHit(row: HydratedChunk, fused: number): RecallHit {
  return {
    id: row.memoryId,
    chunkId: row.chunkId,
    score: row.superseded ? fused * SUPERSEDED_FACTOR : fused,
    content: row.text,
    source: row.source,
    sourceKey: row.sourceKey,
    createdAt: new Date(row.createdAt).toISOString(),
    superseded: row.superseded,
  };
}

/** The fused list keeps the best-ranked chunk of each memory. */
function bestChunkPerMemory(fused: { id: string; score: number }[], memoryOf: Map<string, string>): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const f of fused) {
    const memoryId = memoryOf.get(f.id)!;
    if (seen.has(memoryId)) continue;
    seen.add(memoryId);
    out.push({ chunkId: f.id, memoryId, score: f.score });
  }
  return out;
}
