import type * as LanceDb from '@lancedb/lancedb';
import type { Connection } from '@lancedb/lancedb';

let loaded: typeof LanceDb | undefined;

/**
 * LanceDB's native module, loaded on first use: a search with something indexed or an index write,
 * never at start-up. Loaded, it and apache-arrow held ~46 MB of the idle gateway's RSS (its 180 MB library's touched
 * pages, the Arrow and LanceDB JavaScript), which a gateway that has not used memory yet should not.
 *
 * LanceDB's Rust logger reads LANCEDB_LOG once, when the native module loads, and warns on stderr
 * about normal events ("No existing dataset at …, it will be created" on every first start). Errors
 * reach us as exceptions, so only its errors are printed.
 */
export function lancedb(): typeof LanceDb {
  if (!loaded) {
    process.env.LANCEDB_LOG ??= 'error';
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require('@lancedb/lancedb') as typeof LanceDb;
  }
  return loaded;
}

/**
 * LanceDB's caches default to 6 GB of index and 1 GB of metadata per process. The RaBitQ vector
 * index and the scalar indices of 100k chunks fit in these (the vector codes are ~13 MB); past them
 * pages are re-read from the OS page cache. At 100k chunks, 16/8 MB instead of 48/16 MB kept
 * ~20 MB less RSS with the same latency.
 */
const INDEX_CACHE_BYTES = 16n << 20n;
const METADATA_CACHE_BYTES = 8n << 20n;

export function openConnection(dir: string): Promise<Connection> {
  const { connect, Session } = lancedb();
  return connect(dir, {}, new Session(INDEX_CACHE_BYTES, METADATA_CACHE_BYTES));
}
