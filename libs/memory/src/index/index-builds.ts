import type { Connection } from '@lancedb/lancedb';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** `chunks_<ms>.lance` (a LanceDB table), `terms_<ms>.terms` (a keyword-only build) and a terms rewrite's `.tmp`. */
const BUILD = /^((?:chunks|terms)_\d+)\.(?:lance|terms|terms\.tmp)$/;

/**
 * Deletes every build under `dir` but `keep`: the one it replaced and any a crash mid-rebuild left.
 * A LanceDB table goes through the connection when one is open, else as a folder, so deleting an old
 * table does not load LanceDB.
 */
export async function dropBuildsExcept(dir: string, keep: string, db: Connection | undefined): Promise<void> {
  for (const entry of readdirSync(dir)) {
    const name = BUILD.exec(entry)?.[1];
    if (!name || name === keep) continue;
    if (entry.endsWith('.lance') && db) await db.dropTable(name).catch(() => undefined);
    else rmSync(join(dir, entry), { recursive: true, force: true });
  }
}
