import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { recordMemoryRecall } from '@nestclaw/observability';
import { MemoryEmbedder } from '../embedding/memory-embedder';
import type { KeywordHit } from '../index/keyword.index';
import { ActiveIndex } from '../index/active-index';
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

/** A keyword-only recall before its read from Postgres (`RecallService.plan`). */
export interface RecallPlan {
  query: RecallQuery;
  /** The candidates' chunk ids, best first: what to read (none: nothing to recall, no read needed). */
  chunkIds: string[];
  candidates: Candidate[];
  /** Why a vector or hybrid request runs keyword-only. */
  fallback?: string;
  /** CPU time the plan took, added to the recall's recorded duration. */
  planMs: number;
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
  private readonly logger = new Logger('Memory');

  constructor(
    private readonly config: ConfigService,
    private readonly index: LanceIndex,
    private readonly indexes: ActiveIndex,
    private readonly memories: MemoryRepository,
    private readonly embedder: MemoryEmbedder,
  ) {}

  async recall(q: RecallQuery): Promise<RecallOutcome> {
    const started = performance.now();
    const outcome = await this.run(q);
    recordMemoryRecall(outcome.mode, (performance.now() - started) / 1000, outcome.results.length);
    return outcome;
  }

  /**
   * The keyword-only recall up to its read from Postgres, with no I/O: the candidates to read. Undefined when
   * the index is not open yet or the vector leg would run (an embedder and vectors): then `recall` does it all.
   * The turn's opening statement reads the plan's chunks (`recalledChunksSql`), and `finish` ranks them, so a
   * new turn's recall costs no round trip of its own.
   */
  plan(q: RecallQuery): RecallPlan | undefined {
    // A plugin store searches out of process: `recall` runs it under the recall's timeout.
    if (!this.index.ready || this.indexes.plugin) return undefined;
    const cfg = this.config.get().memory;
    const requested = q.mode ?? cfg.recall.mode;
    let fallback: string | undefined;
    if (requested !== 'keyword') {
      if (!this.embedder.active()) fallback = 'keyword-only: no embedding model configured';
      else if (!this.index.version?.dims) fallback = 'keyword-only: the index has no vectors (yet)';
      else return undefined;
    }
    const started = performance.now();
    const n = Math.max(cfg.fusion.candidates, q.topK * 2);
    const hits = this.index.keyword(q.scope, q.agentId, queryTerms(q.query), n);
    const memoryOf = new Map(hits.map((h) => [h.chunkId, h.memoryId]));
    const fused = fuseRrf([{ ids: hits.map((h) => h.chunkId), weight: cfg.fusion.keyword_weight }], cfg.fusion.k);
    const head = bestChunkPerMemory(fused, memoryOf).slice(0, q.topK * READ_PER_RESULT);
    return {
      query: q,
      chunkIds: head.map((c) => c.chunkId),
      candidates: head,
      ...(fallback ? { fallback } : {}),
      planMs: performance.now() - started,
    };
  }

  /** A plan's candidates as read from Postgres → ranked results (recorded like any recall). */
  finish(plan: RecallPlan, rows: readonly HydratedChunk[]): RecallOutcome {
    const started = performance.now();
    const results = ranked(plan.query, plan.candidates, rows);
    const outcome: RecallOutcome = { results, mode: 'keyword', ...(plan.fallback ? { fallback: plan.fallback } : {}) };
    recordMemoryRecall('keyword', (plan.planMs + performance.now() - started) / 1000, results.length);
    return outcome;
  }

  private async run(q: RecallQuery): Promise<RecallOutcome> {
    if (this.indexes.plugin) return this.viaPlugin(q);
    // The first search after start-up opens the index (LanceDB is not loaded before).
    await this.index.load();
    const cfg = this.config.get().memory;
    const requested = q.mode ?? cfg.recall.mode;
    const n = Math.max(cfg.fusion.candidates, q.topK * 2);
    if (!this.index.ready) return this.degraded(q, queryTerms(q.query), n, requested);
    const plan = this.plan(q);
    if (plan) {
      const rows = await this.memories.hydrate(plan.chunkIds, q.scope, q.agentId);
      const results = ranked(q, plan.candidates, rows);
      return { results, mode: 'keyword', ...(plan.fallback ? { fallback: plan.fallback } : {}) };
    }
    // The vector leg runs (an embedder and vectors); the keyword leg is in-process and synchronous.
    const terms = queryTerms(q.query);
    let fallback: string | undefined;
    let keywordHits = requested !== 'vector' ? this.index.keyword(q.scope, q.agentId, terms, n) : [];
    let vectorHits: KeywordHit[] = [];
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
    const mode: RecallMode = fallback ? 'keyword' : requested;
    // A vector request whose vector leg failed still answers, from keywords.
    if (requested === 'vector' && fallback) keywordHits = this.index.keyword(q.scope, q.agentId, terms, n);
    const legs: RankedLeg[] = [];
    if (mode !== 'vector') legs.push({ ids: keywordHits.map((h) => h.chunkId), weight: cfg.fusion.keyword_weight });
    if (mode !== 'keyword') legs.push({ ids: vectorHits.map((h) => h.chunkId), weight: cfg.fusion.vector_weight });
    const memoryOf = new Map<string, string>();
    for (const h of keywordHits) memoryOf.set(h.chunkId, h.memoryId);
    for (const h of vectorHits) memoryOf.set(h.chunkId, h.memoryId);
    const candidates = bestChunkPerMemory(fuseRrf(legs, cfg.fusion.k), memoryOf).slice(0, q.topK * READ_PER_RESULT);
    const rows = await this.memories.hydrate(
      candidates.map((c) => c.chunkId),
      q.scope,
      q.agentId,
    );
    return { results: ranked(q, candidates, rows), mode, ...(fallback && requested !== 'keyword' ? { fallback } : {}) };
  }

  /**
   * The plugin store's hits, as one RRF leg, read from Postgres like any candidates (so liveness and scope are
   * nestclaw's, not the plugin's). Bounded by `memory.recall.timeout`; a store that fails or hangs yields no
   * memories with the reason as the fallback (shown by /memory/status and /doctor).
   */
  private async viaPlugin(q: RecallQuery): Promise<RecallOutcome> {
    const store = this.indexes.plugin!;
    const cfg = this.config.get().memory;
    const n = Math.max(cfg.fusion.candidates, q.topK * 2);
    if (!store.ready) return this.degraded(q, queryTerms(q.query), n, 'keyword');
    let hits: KeywordHit[];
    try {
      hits = await store.search(q.scope, q.agentId, q.query, n, cfg.recall.timeout);
    } catch (e) {
      const fallback = `memory store plugin:${store.selected} failed: ${(e as Error).message}`;
      this.logger.warn(fallback);
      return { results: [], mode: 'keyword', fallback };
    }
    const memoryOf = new Map(hits.map((h) => [h.chunkId, h.memoryId]));
    const fused = fuseRrf([{ ids: hits.map((h) => h.chunkId), weight: cfg.fusion.keyword_weight }], cfg.fusion.k);
    const candidates = bestChunkPerMemory(fused, memoryOf).slice(0, q.topK * READ_PER_RESULT);
    const rows = await this.memories.hydrate(
      candidates.map((c) => c.chunkId),
      q.scope,
      q.agentId,
    );
    return { results: ranked(q, candidates, rows), mode: 'keyword' };
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
      best.set(row.memoryId, toHit(row, (row.superseded ? SUPERSEDED_FACTOR : 1) / (60 + i + 1)));
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

/**
 * Candidates → results: the best `READ_PER_RESULT × topK` as read from Postgres (the truth: a forgotten memory
 * is gone, a superseded one ranks below its replacement), re-sorted, cut to top-K.
 */
function ranked(q: RecallQuery, candidates: readonly Candidate[], rows: readonly HydratedChunk[]): RecallHit[] {
  const byChunk = new Map(rows.map((r) => [r.chunkId, r]));
  const scored: { row: HydratedChunk; score: number }[] = [];
  for (const c of candidates) {
    const row = byChunk.get(c.chunkId);
    if (row) scored.push({ row, score: row.superseded ? c.score * SUPERSEDED_FACTOR : c.score });
  }
  // Only the kept ones become results: a candidate's date is read only to break a tie.
  return scored
    .sort((a, b) => b.score - a.score || timeOf(b.row) - timeOf(a.row))
    .slice(0, q.topK)
    .map(({ row, score }) => toHit(row, score));
}

/** `created_at` as read: a Date from a query, an ISO string from JSON (the turn's opening statement). */
function timeOf(row: HydratedChunk): number {
  return new Date(row.createdAt).getTime();
}

/** A Postgres row and its final score as a recall result. */
function toHit(row: HydratedChunk, score: number): RecallHit {
  return {
    id: row.memoryId,
    chunkId: row.chunkId,
    score,
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
