import { Injectable } from '@nestjs/common';
import { observeMemoryIndex } from '@nestclaw/observability';
import { MemoryEmbedder } from './embedding/memory-embedder';
import { describeVersion } from './index/index-version';
import { LanceIndex } from './index/lance.index';
import { ReindexProgress, ReindexService } from './index/reindex.service';
import { IndexQueueRepository, ParkedEntry } from './queue/index-queue.repository';
import { IndexWorker } from './queue/index.worker';
import { TurnMemoryService } from './recall/turn-memory.service';
import { MemoryRepository } from './store/memory.repository';

export interface MemoryStatus {
  /** "hybrid" with an embedding model, else "keyword-only". */
  mode: 'hybrid' | 'keyword-only';
  memories: number;
  chunks: number;
  indexedChunks: number;
  queue: { pending: number; parked: number; oldestPendingMs: number | null };
  index: { ready: boolean; version: string | null; expected: string; current: boolean; builtAt: string | null };
  embedding: { model: string | null; lastError: { at: string; message: string } | null };
  reindex: ReindexProgress;
  lastFallback: { at: string; reason: string } | null;
  workerError: { at: string; message: string } | null;
  parked: ParkedEntry[];
}

/** Everything an operator needs to see about memory: GET /v1/memory/status, `nestclaw memory status`, /doctor. */
@Injectable()
export class MemoryStatusService {
  constructor(
    private readonly memories: MemoryRepository,
    private readonly queue: IndexQueueRepository,
    private readonly index: LanceIndex,
    private readonly reindex: ReindexService,
    private readonly embedder: MemoryEmbedder,
    private readonly turns: TurnMemoryService,
    private readonly worker: IndexWorker,
  ) {
    observeMemoryIndex(async () => {
      const q = await this.queue.stats();
      return { pending: q.pending, oldestPendingSeconds: (q.oldestPendingMs ?? 0) / 1000, keywordOnly: this.keywordOnly() };
    });
  }

  private keywordOnly(): boolean {
    return !(this.embedder.active() && this.index.version?.dims);
  }

  async status(): Promise<MemoryStatus> {
    const [counts, queue, parked, indexed] = await Promise.all([
      this.memories.counts(),
      this.queue.stats(),
      this.queue.parked(),
      this.index.rowCount().catch(() => 0),
    ]);
    const active = this.embedder.active();
    const expected = this.reindex.expected();
    const v = this.index.version;
    return {
      mode: this.keywordOnly() ? 'keyword-only' : 'hybrid',
      memories: counts.memories,
      chunks: counts.chunks,
      indexedChunks: indexed,
      queue,
      index: {
        ready: this.index.ready,
        version: v ? describeVersion(v) : null,
        expected: describeVersion(expected),
        current: this.index.matches(expected),
        builtAt: v?.builtAt ?? null,
      },
      embedding: { model: active?.key ?? null, lastError: this.embedder.lastError ?? null },
      reindex: this.reindex.progress,
      lastFallback: this.turns.lastFallback ?? null,
      workerError: this.worker.lastError ?? null,
      parked,
    };
  }
}
