import { Injectable } from '@nestjs/common';
import { MemoryEmbedder } from '../embedding/memory-embedder';
import { IndexRowBuilder } from './index-rows';
import { ActiveIndex } from './active-index';
import { MemoryRepository } from '../store/memory.repository';
import type { QueueEntry } from '../queue/index-queue.repository';

/** One queue batch that could not be applied, and why. */
export interface EntryFailure {
  ids: string[];
  error: string;
}

/** Makes the derived index agree with Postgres about the memories of claimed queue entries. */
@Injectable()
export class IndexEntryApplier {
  constructor(
    private readonly memories: MemoryRepository,
    private readonly indexes: ActiveIndex,
    private readonly rows: IndexRowBuilder,
    private readonly embedder: MemoryEmbedder,
  ) {}

  /** The batch at once; if that fails, entry by entry so one bad memory cannot block the rest. */
  async applyIsolated(entries: QueueEntry[]): Promise<EntryFailure[]> {
    try {
      const vectorError = await this.apply(entries);
      return vectorError ? [{ ids: entries.map((e) => e.id), error: vectorError }] : [];
    } catch (e) {
      if (entries.length === 1) return [{ ids: [entries[0].id], error: (e as Error).message }];
      const out: EntryFailure[] = [];
      for (const entry of entries) out.push(...(await this.applyIsolated([entry])));
      return out;
    }
  }

  /** Returns an error when the rows went in without vectors (kept for keyword search, retried for vectors). */
  private async apply(entries: QueueEntry[]): Promise<string | undefined> {
    const memoryIds = [...new Set(entries.map((e) => e.memoryId))];
    const chunks = await this.memories.chunksOf(memoryIds);
    const index = this.indexes.current;
    const active = index.version?.dims ? this.embedder.active() : undefined;
    const built = await this.rows.build(chunks, active);
    await index.apply(memoryIds, built.rows);
    return built.vectorError;
  }
}
