import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LABEL as L, METRIC as M } from '../telemetry.names';
import { BackgroundReading } from './background-reading';

/** Recall is meant to take milliseconds: buckets from 1 ms to the default recall budget and past it. */
const RECALL_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.5];
const MODES = ['keyword', 'vector', 'hybrid'];
const PURPOSES = ['query', 'index'];
/** How stale the index gauges may be before a scrape starts a new read. */
const INDEX_MAX_AGE_MS = 1000;

export interface MemoryIndexState {
  /** index_queue entries waiting (not parked). */
  pending: number;
  /** Age of the oldest of them; 0 when none. */
  oldestPendingSeconds: number;
  /** No embedding model configured, or the index has no vectors: recall runs on keywords alone. */
  keywordOnly: boolean;
}

/** Read from libs/memory (one small query on index_queue), in the background: a scrape never waits on it. */
export interface MemorySources {
  memoryIndex?: () => Promise<MemoryIndexState>;
}

/**
 * Memory's metrics, in the process registry. Every mode and purpose series starts at zero so
 * rate() and the dashboard see them before the first recall.
 */
export class MemoryMetrics {
  private readonly r: Registry[];
  readonly recallDuration: Histogram<string>;
  readonly zeroHits: Counter<string>;
  readonly embeddingCalls: Counter<string>;
  readonly embeddingErrors: Counter<string>;
  readonly embeddingCacheHits: Counter<string>;
  /** The index gauges' source: the last value read, at most ~1 s old while scrapes keep coming. */
  readonly indexReading: BackgroundReading<MemoryIndexState>;

  constructor(registry: Registry, sources: MemorySources) {
    this.r = [registry];
    const r = this.r;
    this.recallDuration = new Histogram({
      name: M.memoryRecallDuration,
      help: 'Memory recall latency by the mode that ran',
      labelNames: [L.mode],
      buckets: RECALL_SECONDS,
      registers: r,
    });
    this.zeroHits = new Counter({ name: M.memoryRecallZeroHits, help: 'Recalls that found nothing', labelNames: [L.mode], registers: r });
    this.embeddingCalls = new Counter({
      name: M.memoryEmbeddingCalls,
      help: 'Requests to the embedding model',
      labelNames: [L.purpose],
      registers: r,
    });
    this.embeddingErrors = new Counter({
      name: M.memoryEmbeddingErrors,
      help: 'Embedding requests that failed or timed out',
      labelNames: [L.purpose],
      registers: r,
    });
    this.embeddingCacheHits = new Counter({
      name: M.memoryEmbeddingCacheHits,
      help: 'Texts whose vector came from the embedding cache',
      labelNames: [L.purpose],
      registers: r,
    });
    // The three gauges share one reading; /metrics must answer even while the database is slow or down.
    const index = (this.indexReading = new BackgroundReading(() => sources.memoryIndex?.(), INDEX_MAX_AGE_MS, 'memory index gauges'));
    new Gauge({
      name: M.memoryIndexQueueDepth,
      help: 'index_queue entries waiting for the index worker',
      registers: r,
      collect() {
        const s = index.current();
        if (s) this.set(s.pending);
      },
    });
    new Gauge({
      name: M.memoryIndexQueueOldest,
      help: 'Age of the oldest waiting index_queue entry (0 when none)',
      registers: r,
      collect() {
        const s = index.current();
        if (s) this.set(s.oldestPendingSeconds);
      },
    });
    new Gauge({
      name: M.memoryKeywordOnly,
      help: '1 when memory recall runs keyword-only (no embedding model, or an index without vectors)',
      registers: r,
      collect() {
        const s = index.current();
        if (s) this.set(s.keywordOnly ? 1 : 0);
      },
    });
    for (const m of MODES) {
      this.zeroHits.labels(m).inc(0);
      this.recallDuration.zero({ [L.mode]: m });
    }
    for (const p of PURPOSES) {
      this.embeddingCalls.labels(p).inc(0);
      this.embeddingErrors.labels(p).inc(0);
      this.embeddingCacheHits.labels(p).inc(0);
    }
  }
}
