import type { IndexedChunk, IndexRow } from './index-arrow';

/**
 * Rows written since the last optimize pass, kept as recall shows them. LanceDB's chunk-id B-tree
 * covers a row only once an optimize has folded it in; until then a lookup by id would scan every
 * small fragment written since (one per worker pass). Recall reads these rows from here and asks
 * LanceDB only about indexed rows, so a lookup costs the same however many writes are pending.
 * Bounded by the optimize triggers (at most a few thousand rows).
 */
export class RecentRows {
  private readonly rows = new Map<string, IndexedChunk>();

  get size(): number {
    return this.rows.size;
  }

  add(rows: IndexRow[]): void {
    for (const r of rows)
      this.rows.set(r.chunkId, {
        chunkId: r.chunkId,
        memoryId: r.memoryId,
        text: r.text,
        source: r.source,
        sourceKey: r.sourceKey,
        createdAt: r.createdAt,
        superseded: r.superseded,
      });
  }

  removeMemories(memoryIds: string[]): void {
    if (this.rows.size === 0) return;
    const gone = new Set(memoryIds);
    for (const [chunkId, row] of this.rows) if (gone.has(row.memoryId)) this.rows.delete(chunkId);
  }

  /** The rows held here, and the ids that must be read from the indexed table. */
  take(chunkIds: string[]): { found: IndexedChunk[]; missing: string[] } {
    const found: IndexedChunk[] = [];
    const missing: string[] = [];
    for (const id of chunkIds) {
      const row = this.rows.get(id);
      if (row) found.push(row);
      else missing.push(id);
    }
    return { found, missing };
  }

  clear(): void {
    this.rows.clear();
  }
}
