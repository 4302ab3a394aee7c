/**
 * The derived search store a trusted plugin may supply instead of the built-in LanceDB + keyword index
 * (`memory.store: plugin:<id>`, docs/plugins.md). It holds no truth: nestclaw fills it from Postgres, rebuilds
 * it when it is empty or was built by another store or version, re-reads every hit from Postgres (a forgotten
 * memory never comes back, whatever the store still holds) and fuses and ranks the results itself.
 */

/** One chunk of a memory, as the store indexes it. */
export interface MemorySearchChunk {
  /** Postgres chunk id (a decimal string): what `search` returns. */
  chunkId: string;
  memoryId: string;
  /** Whose memory: the person it belongs to (never return it for another scope). */
  scope: string;
  agentId: string;
  text: string;
  /** The chunk's embedding when an embedding model is configured, else absent. */
  vector?: number[];
}

export interface MemorySearchQuery {
  query: string;
  scope: string;
  agentId: string;
  /** Hits wanted at most. */
  limit: number;
  /** Aborted when the recall's time (`memory.recall.timeout`) is up: the answer is no longer awaited. */
  signal: AbortSignal;
}

/** A hit: the chunk (best first); nestclaw reads its text and liveness from Postgres. */
export interface MemorySearchHit {
  chunkId: string;
  memoryId: string;
}

export interface MemorySearchStore {
  /** Replaces every chunk of each memory named in `chunks` with these (idempotent: a retry sends the same). */
  upsert(chunks: MemorySearchChunk[]): Promise<void>;
  /** Removes every chunk of these memories (forgotten, or their file deleted); unknown ids are fine. */
  remove(memoryIds: string[]): Promise<void>;
  /** Best chunks for the query among one scope's and agent's chunks only. */
  search(query: MemorySearchQuery): Promise<MemorySearchHit[]>;
  /** Chunks held: 0 while nestclaw thinks it filled the store means it was emptied, and it is refilled. */
  count?(): Promise<number>;
  /** Drops everything before a rebuild from Postgres (without it, a rebuild only adds and replaces). */
  reset?(): Promise<void>;
  close?(): Promise<void>;
}

/** What the store is built with (the plugin's own `config` reaches it through its api). */
export interface MemorySearchStoreSettings {
  /** `memory.store_settings` from config.yaml (the plugin's own `config` is in its api). */
  settings: Readonly<Record<string, unknown>>;
}

/** A store kind a plugin adds; `create` runs once, when memory starts with `memory.store: plugin:<id>`. */
export interface MemorySearchStoreDefinition {
  id: string;
  create(settings: MemorySearchStoreSettings): MemorySearchStore | Promise<MemorySearchStore>;
}
