import type { Connection, Table } from '@lancedb/lancedb';
import type { IndexBuild } from './derived-index';
import { schemaFor, toArrow } from './index-arrow';
import type { IndexVersion } from './index-version';
import { KeywordIndex } from './keyword.index';

export interface LanceBuildEnd {
  /** Switches searches over to the finished table (LanceIndex). */
  finish(name: string, table: Table, keywords: KeywordIndex, version: IndexVersion): Promise<void>;
  abandoned(): void;
}

/** A rebuild with vectors: rows go into a new LanceDB table (and its keyword index) while the current build serves. */
export async function startLanceBuild(db: Connection, dims: number, end: LanceBuildEnd): Promise<IndexBuild> {
  const name = `chunks_${Date.now()}`;
  const table = await db.createEmptyTable(name, schemaFor(dims), { mode: 'overwrite' });
  const keywords = new KeywordIndex();
  return {
    add: async (rows) => {
      if (rows.length) await table.add(toArrow(rows, dims));
      for (const r of rows) keywords.add(r);
    },
    finish: (version) => end.finish(name, table, keywords, version),
    abandon: async () => {
      end.abandoned();
      await db.dropTable(name).catch(() => undefined);
    },
  };
}
