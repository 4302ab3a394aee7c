import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { IndexWorker } from '../queue/index.worker';
import { MemoryRepository } from './memory.repository';
import { NewMemory } from './memory.types';

/** Memories written together: one statement for the turns that finished within this many ms. */
const FLUSH_AFTER_MS = 20;
/** At most this many memories in one statement (a larger backlog takes several). */
const MAX_BATCH = 200;

type KeyedMemory = NewMemory & { sourceKey: string };

/**
 * Remembers finished turns off the reply's path and in batches: the turns finished within
 * FLUSH_AFTER_MS share one INSERT (memories, chunks and queue entries together), instead of each
 * holding a transaction of four statements. A source key already stored (a turn run again after a
 * restart) is replaced on its own, as MemoryService.replace does. Like the turn's `rememberTurn`
 * before it, a memory not yet written when the process dies is not written; the transcript itself
 * was committed by the turn.
 */
@Injectable()
export class MemoryBatchWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Memory');
  private pending: KeyedMemory[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly writes = new Set<Promise<void>>();
  /** Its own async context: the flush's statements and log lines are not the turn's that queued it. */
  private readonly scope = new AsyncResource('memory-batch-writer');

  constructor(
    private readonly memories: MemoryRepository,
    private readonly worker: IndexWorker,
  ) {}

  add(memory: KeyedMemory): void {
    this.pending.push(memory);
    this.timer ??= this.scope.runInAsyncScope(() => setTimeout(() => this.flush(), FLUSH_AFTER_MS));
  }

  private flush(): void {
    this.timer = undefined;
    while (this.pending.length) {
      const batch = this.pending.splice(0, MAX_BATCH);
      const write: Promise<void> = this.write(batch)
        .catch((e: unknown) => this.logger.warn(`could not remember ${batch.length} turn(s): ${(e as Error).message}`))
        .finally(() => this.writes.delete(write));
      this.writes.add(write);
    }
  }

  private async write(queued: KeyedMemory[]): Promise<void> {
    // One row per source key in a statement: the last memory queued for a key wins.
    const batch = [...new Map(queued.map((m) => [m.sourceKey, m])).values()];
    const inserted = new Set(await this.memories.insertMany(batch));
    // Source keys already stored: replaced one at a time (rare: a turn run again after a restart).
    for (const m of batch) if (!inserted.has(m.sourceKey)) await this.memories.replaceBySourceKey(m);
    this.worker.kick();
  }

  /** Writes what is queued before the pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.flush();
    await Promise.allSettled([...this.writes]);
  }
}
