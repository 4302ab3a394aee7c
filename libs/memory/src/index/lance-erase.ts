import type { Table } from '@lancedb/lancedb';

/**
 * Erasing rows from LanceDB's files, not only from its answers. A delete only writes a deletion
 * vector: the row's terms stay in the fragment's data file, and compaction rewrites a fragment only
 * once more than 10 % of it is deleted or when it has a small neighbour, so a forgotten memory could
 * stay readable on disk indefinitely. Here the fragments that held the rows are rewritten: their
 * surviving rows are copied into a new fragment and the old fragments are deleted whole (LanceDB then
 * drops them from the manifest); their files go when the older versions are cleaned up.
 *
 * Row ids are row addresses (fragment id << 32 | offset) while stable row ids are off, LanceDB's default.
 */
const FRAGMENT_SHIFT = 32n;
const IDS_PER_FILTER = 500;

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
export const memoryFilter = (ids: string[]) => `memory_id IN (${ids.map(quote).join(', ')})`;
const fragmentFilter = (f: bigint) => `_rowid >= ${f << FRAGMENT_SHIFT} AND _rowid < ${(f + 1n) << FRAGMENT_SHIFT}`;

/** Fragments holding any row of these memories (read before their rows are deleted). */
export async function fragmentsHolding(table: Table, memoryIds: string[]): Promise<bigint[]> {
  const fragments = new Set<bigint>();
  for (let i = 0; i < memoryIds.length; i += IDS_PER_FILTER) {
    const rows = (await table
      .query()
      .where(memoryFilter(memoryIds.slice(i, i + IDS_PER_FILTER)))
      .withRowId()
      .select(['chunk_id'])
      .toArray()) as { _rowid: bigint }[];
    for (const r of rows) fragments.add(BigInt(r._rowid) >> FRAGMENT_SHIFT);
  }
  return [...fragments];
}

/**
 * After the rows were deleted: copies each fragment's remaining rows into a new fragment, then
 * deletes the old one whole. Costs a read and write of those fragments (after compaction, the
 * table's), which a forget — rare, and asked for by a person — can afford.
 */
export async function rewriteFragments(table: Table, fragments: bigint[]): Promise<void> {
  for (const f of fragments) {
    const survivors = await table.query().where(fragmentFilter(f)).toArrow();
    if (survivors.numRows > 0) await table.add(survivors);
    // The copies are in a newer fragment (ids only grow), outside this range.
    await table.delete(fragmentFilter(f));
  }
}
