import type { IndexRow } from './index-arrow';
import type { IndexVersion, StoredIndexVersion } from './index-version';

/** A rebuild in progress: rows go into a new build while the current one keeps serving. */
export interface IndexBuild {
  add(rows: IndexRow[]): Promise<void>;
  finish(version: IndexVersion): Promise<void>;
  abandon(): Promise<void>;
}

/**
 * What the worker, the rebuild and the status need of the derived search index, whichever serves:
 * the built-in LanceDB one (LanceIndex) or a plugin's store (PluginStoreIndex). Recall searches each its own way.
 */
export interface DerivedIndex {
  /** Serving searches (a build exists). */
  readonly ready: boolean;
  readonly version: StoredIndexVersion | undefined;
  /** Whether the serving build is for the expected version (else a rebuild follows). */
  matches(expected: IndexVersion): boolean;
  /** Makes the index hold exactly `rows` for these memories (none: the memory is gone). Idempotent. */
  apply(memoryIds: string[], rows: IndexRow[]): Promise<void>;
  optimize(): Promise<void>;
  startBuild(dims: number | null): Promise<IndexBuild>;
  rowCount(): Promise<number>;
}
