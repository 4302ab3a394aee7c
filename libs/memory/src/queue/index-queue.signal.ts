/**
 * "Entries were queued": the store says so after committing memory rows with their `index_queue`
 * entries, so they are applied now instead of at the next safety poll. The index worker answers it
 * (index/index.worker.ts); another process's writes reach it as a NOTIFY instead. The store thus
 * knows the queue, not who drains it: store → queue → index, no folder importing back.
 */
export abstract class IndexQueueSignal {
  abstract kick(): void;
}
