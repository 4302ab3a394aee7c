import { Injectable } from '@nestjs/common';
import { observeMemoryIndex } from '@nestclaw/observability';
import { IndexState, IndexStateReader } from './index/index-state';
import { IndexFeedCursor } from './index/index-feed.cursor';
import { IndexQueueRepository, ParkedEntry } from './queue/index-queue.repository';
import { IndexWorker } from './index/index.worker';
import { TurnMemoryService } from './recall/turn-memory.service';
import { MemoryRepository } from './store/memory.repository';

export interface MemoryStatus {
  /** "hybrid" with an embedding model, else "keyword-only". */
  mode: IndexState['mode'];
  memories: number;
  chunks: number;
  indexedChunks: number;
  queue: { pending: number; parked: number; oldestPendingMs: number | null };
  index: IndexState['index'];
  embedding: IndexState['embedding'];
  reindex: IndexState['reindex'];
  lastFallback: { at: string; reason: string } | null;
  workerError: { at: string; message: string } | null;
  parked: ParkedEntry[];
}

/** What a token without the admin scope sees: its own person's counts, nothing about anyone else's. */
export interface PersonMemoryStatus {
  scope: string;
  mode: IndexState['mode'];
  memories: number;
  chunks: number;
}

/** Everything an operator needs to see about memory: GET /v1/memory/status, `nestclaw memory status`, /doctor. */
@Injectable()
export class MemoryStatusService {
  constructor(
    private readonly memories: MemoryRepository,
    private readonly queue: IndexQueueRepository,
    private readonly indexState: IndexStateReader,
    private readonly turns: TurnMemoryService,
    private readonly worker: IndexWorker,
    private readonly cursor: IndexFeedCursor,
  ) {
    observeMemoryIndex(async () => {
      const q = await this.queue.stats(this.cursor.position);
      return { pending: q.pending, oldestPendingSeconds: (q.oldestPendingMs ?? 0) / 1000, keywordOnly: this.indexState.keywordOnly() };
    });
  }

  async personStatus(scope: string): Promise<PersonMemoryStatus> {
    const counts = await this.memories.countsOf(scope);
    return { scope, mode: this.indexState.keywordOnly() ? 'keyword-only' : 'hybrid', ...counts };
  }

  /** Each replica's index and how far behind the change feed it is (`/v1/cluster`, issue 24). */
  async indexes(): Promise<
    { indexKey: string; replicaId: string; self: boolean; pending: number; lagMs: number | null; updatedAt: Date }[]
  > {
    const rows = await this.queue.cursors();
    return rows.map((r) => ({ ...r, self: r.indexKey === this.cursor.key }));
  }

  async status(): Promise<MemoryStatus> {
    const [counts, queue, parked, state] = await Promise.all([
      this.memories.counts(),
      this.queue.stats(this.cursor.position),
      this.queue.parked(),
      this.indexState.read(),
    ]);
    return {
      mode: state.mode,
      memories: counts.memories,
      chunks: counts.chunks,
      indexedChunks: state.indexedChunks,
      queue,
      index: state.index,
      embedding: state.embedding,
      reindex: state.reindex,
      lastFallback: this.turns.lastFallback ?? null,
      workerError: this.worker.lastError ?? null,
      parked,
    };
  }
}
