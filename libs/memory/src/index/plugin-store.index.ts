import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileWhole } from '@nestclaw/common';
import type { DerivedIndex, IndexBuild } from './derived-index';
import type { IndexRow } from './index-arrow';
import { IndexVersion, sameVersion, StoredIndexVersion } from './index-version';
import type { MemorySearchChunk, MemorySearchHit, MemorySearchStore } from './memory-search-store.port';
import { MemorySearchStores } from './memory-search-stores.registry';
import { withDeadline } from './plugin-store.deadline';

/** Longest a write or reset may take before it counts as failed (the queue retries writes). */
const WRITE_TIMEOUT_MS = 30_000;
/** Longest `create` and `count` may take at start-up and for a status read: neither may hold up a start or /doctor. */
const QUICK_TIMEOUT_MS = 5_000;
const STATE_FILE = 'store-version.json';

/** What the state file records about a build: the index version plus which store and plugin version filled it. */
interface StoreState extends StoredIndexVersion {
  store: string;
  pluginVersion: string;
  /** Chunks the last rebuild wrote (the worker's later writes are not counted). */
  chunks: number;
}

/**
 * A plugin's search store as the derived index (`memory.store: plugin:<id>`). Its build record lives in
 * `<index_dir>/plugin-<id>/store-version.json`; a record for another plugin version, a missing record or a
 * store that reports no chunks means "rebuild from Postgres". Every call into the
 * plugin is bounded in time, so a hung store fails the write (retried by the queue) or the search (recall goes
 * on without memories), never a turn.
 */
@Injectable()
export class PluginStoreIndex implements DerivedIndex, OnApplicationShutdown {
  private readonly logger = new Logger('MemoryStore');
  private store: MemorySearchStore | undefined;
  private state: StoreState | undefined;
  private dir = '';
  private id = '';
  private pluginVersion = '';
  /** Why the selected store is not serving (no plugin registered it, `create` failed). */
  unavailable: string | undefined;

  constructor(private readonly stores: MemorySearchStores) {}

  /** Creates the plugin's store and reads its build record; false when there is nothing valid to serve (rebuild). */
  async open(indexDir: string, id: string, settings: Record<string, unknown>): Promise<boolean> {
    this.id = id;
    this.dir = join(indexDir, `plugin-${id}`);
    mkdirSync(this.dir, { recursive: true });
    const found = this.stores.get(id);
    if (!found) {
      this.unavailable = `memory.store is plugin:${id}, but no loaded trusted plugin registered a memory store "${id}"`;
      this.logger.error(this.unavailable);
      return false;
    }
    this.pluginVersion = found.pluginVersion;
    try {
      this.store = await withDeadline(() => found.definition.create({ settings }), QUICK_TIMEOUT_MS, 'create');
    } catch (e) {
      this.unavailable = `memory store plugin:${id} could not be created: ${(e as Error).message}`;
      this.logger.error(this.unavailable);
      return false;
    }
    this.state = await this.readState();
    this.logger.log(`memory search store: plugin:${id} (plugin ${found.plugin} ${found.pluginVersion})`);
    return !!this.state;
  }

  private async readState(): Promise<StoreState | undefined> {
    const file = join(this.dir, STATE_FILE);
    if (!existsSync(file)) return undefined;
    let state: StoreState;
    try {
      state = JSON.parse(readFileSync(file, 'utf8')) as StoreState;
    } catch (e) {
      this.logger.warn(`memory store plugin:${this.id}: unreadable ${STATE_FILE} (${(e as Error).message}); refilling it`);
      return undefined;
    }
    if (state.store !== this.id || state.pluginVersion !== this.pluginVersion) {
      this.logger.log(`memory store plugin:${this.id} was filled by plugin version ${state.pluginVersion}; refilling it`);
      return undefined;
    }
    // Empty: emptied or replaced behind nestclaw's back (or truly empty, when refilling costs nothing).
    const count = this.store?.count?.bind(this.store);
    if (count) {
      const held = await withDeadline(count, QUICK_TIMEOUT_MS, 'count').catch(() => 0);
      if (held === 0) {
        this.logger.log(`memory store plugin:${this.id} is empty; refilling it from the database`);
        return undefined;
      }
    }
    return state;
  }

  get selected(): string {
    return this.id;
  }

  get ready(): boolean {
    return !!this.store && !!this.state;
  }

  get version(): StoredIndexVersion | undefined {
    return this.state;
  }

  matches(expected: IndexVersion): boolean {
    return !!this.state && sameVersion(this.state, expected);
  }

  async rowCount(): Promise<number> {
    const count = this.store?.count?.bind(this.store);
    if (!count) return this.state?.chunks ?? 0;
    return withDeadline(count, QUICK_TIMEOUT_MS, 'count');
  }

  async apply(memoryIds: string[], rows: IndexRow[]): Promise<void> {
    const store = this.current();
    const kept = new Set(rows.map((r) => r.memoryId));
    const gone = memoryIds.filter((id) => !kept.has(id));
    if (gone.length) await withDeadline(() => store.remove(gone), WRITE_TIMEOUT_MS, 'remove');
    if (rows.length) await withDeadline(() => store.upsert(rows.map(chunkOf)), WRITE_TIMEOUT_MS, 'upsert');
  }

  /** The plugin's ranked hits, within `timeoutMs` (then aborted and failed). */
  search(scope: string, agentId: string, query: string, limit: number, timeoutMs: number): Promise<MemorySearchHit[]> {
    const store = this.current();
    const abort = new AbortController();
    return withDeadline(() => store.search({ query, scope, agentId, limit, signal: abort.signal }), timeoutMs, 'search', abort).then(
      (out) =>
        (Array.isArray(out) ? out : [])
          .filter((h) => h && h.memoryId && /^\d+$/.test(String(h.chunkId)))
          .map((h) => ({ chunkId: String(h.chunkId), memoryId: String(h.memoryId) })),
    );
  }

  async optimize(): Promise<void> {}

  async startBuild(dims: number | null): Promise<IndexBuild> {
    const store = this.current();
    const reset = store.reset?.bind(store);
    if (reset) await withDeadline(reset, WRITE_TIMEOUT_MS, 'reset');
    let chunks = 0;
    return {
      add: async (rows) => {
        if (rows.length) await withDeadline(() => store.upsert(rows.map(chunkOf)), WRITE_TIMEOUT_MS, 'upsert');
        chunks += rows.length;
      },
      finish: async (version) => {
        const state: StoreState = {
          ...version,
          dims,
          table: `plugin:${this.id}`,
          builtAt: new Date().toISOString(),
          store: this.id,
          pluginVersion: this.pluginVersion,
          chunks,
        };
        const file = join(this.dir, STATE_FILE);
        replaceFileWhole(file, JSON.stringify(state, null, 2), 0o644);
        this.state = state;
      },
      abandon: async () => {
        // The store holds a partial fill: without a record it is refilled at the next check.
        rmSync(join(this.dir, STATE_FILE), { force: true });
        this.state = undefined;
      },
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store?.close?.().catch((e: unknown) => this.logger.warn(`memory store plugin:${this.id} close: ${(e as Error).message}`));
  }

  private current(): MemorySearchStore {
    if (!this.store) throw new Error(this.unavailable ?? 'the memory store is not open');
    return this.store;
  }
}

function chunkOf(r: IndexRow): MemorySearchChunk {
  return {
    chunkId: r.chunkId,
    memoryId: r.memoryId,
    scope: r.scope,
    agentId: r.agentId,
    text: r.text ?? '',
    ...(r.vector ? { vector: Array.from(r.vector) } : {}),
  };
}
