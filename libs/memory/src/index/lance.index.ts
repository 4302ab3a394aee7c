import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Connection, Table } from '@lancedb/lancedb';
import { mkdirSync } from 'node:fs';
import type { DerivedIndex, IndexBuild } from './derived-index';
import { warnIfHeapTight } from './heap-headroom';
import { dropBuildsExcept } from './index-builds';
import { IndexVersion, readStoredVersion, StoredIndexVersion, writeStoredVersion } from './index-version';
import { IndexRow, toArrow } from './index-arrow';
import { KeywordHit, KeywordIndex } from './keyword.index';
import { fragmentsHolding, memoryFilter, rewriteFragments } from './lance-erase';
import { openConnection } from './lance-module';
import { startLanceBuild } from './lance-build';
import {
  CLEANUP_GRACE_MS,
  CLOSE_GRACE_MS,
  createScalarIndices,
  ensureVectorIndex,
  hasScalarIndices,
  loadKeywords,
  nearestRows,
  OPTIMIZE_AFTER_ROWS,
  OPTIMIZE_AFTER_WRITES,
  sealBuild,
  unindexedRows,
} from './lance-tables';
import { isTermsTable, startTermsBuild, termsFile, TermsTable } from './terms.table';

/**
 * The derived hybrid index: one LanceDB table of chunks (the shared tokenizer's terms and the
 * vector column) under `memory.index_dir`, plus `index-version.json` naming the table
 * and what it was built with; vector search runs in LanceDB, BM25 in the in-memory KeywordIndex
 * loaded from the terms column. A keyword-only build (no embedding model) is a terms file instead
 * (`TermsTable`), and LanceDB is never loaded for it. Holds no truth: anything here can be rebuilt from Postgres.
 * LanceDB itself loads on first use (`load`: the first search or write), not when the index is opened.
 */
@Injectable()
export class LanceIndex implements DerivedIndex, OnApplicationShutdown {
  private readonly logger = new Logger('MemoryIndex');
  private db: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  /** The stored build being opened (`load`). */
  private loading: Promise<void> | undefined;
  private dir = '';
  private table: Table | undefined;
  /** The serving build when it is keyword-only (then `table` is undefined). */
  private terms: TermsTable | undefined;
  private keywords = new KeywordIndex();
  private stored: StoredIndexVersion | undefined;
  private sinceOptimize = 0;
  private writesSinceOptimize = 0;
  private building = false;
  private writes: Promise<unknown> = Promise.resolve();
  /** Set after an erase: the cleanup that removes the old versions' files once their grace has passed. */
  private purgeTimer: NodeJS.Timeout | undefined;

  /**
   * At start-up: which build is on disk (index-version.json), without loading LanceDB; `load` opens
   * it when a search or write first needs it. Undefined when there is none to serve (a rebuild follows).
   */
  async open(dir: string): Promise<StoredIndexVersion | undefined> {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
    try {
      this.stored = readStoredVersion(dir);
      return this.stored;
    } catch (e) {
      this.logger.warn(`the memory index at ${dir} cannot be opened (${(e as Error).message}); it will be rebuilt`);
      return undefined;
    }
  }

  /**
   * Opens the stored build, if not yet: LanceDB, the table, and the keyword index from its terms
   * column. Recall awaits it before searching, writes before writing. A build that cannot be
   * opened is dropped (not `ready`: recall falls back to Postgres) and rebuilt by the next check.
   */
  load(): Promise<void> {
    const stored = this.stored;
    if (this.table || this.terms || !stored) return Promise.resolve();
    return (this.loading ??= this.loadStored(stored).finally(() => (this.loading = undefined)));
  }

  private async loadStored(stored: StoredIndexVersion): Promise<void> {
    try {
      if (isTermsTable(stored.table)) return this.serve(stored, TermsTable.open(termsFile(this.dir, stored.table)));
      const table = await (await this.connection()).openTable(stored.table);
      const keywords = await loadKeywords(table);
      // Rows written after the last optimize before a stop are folded in by the next idle pass.
      const unindexed = await unindexedRows(table);
      // A build that finished meanwhile serves instead.
      if (this.stored !== stored) return table.close();
      this.table = table;
      this.keywords = keywords;
      this.sinceOptimize = unindexed;
      warnIfHeapTight(this.logger, this.keywords.size);
    } catch (e) {
      this.logger.warn(`the memory index at ${this.dir} cannot be opened (${(e as Error).message}); it will be rebuilt`);
      if (this.stored === stored) this.stored = undefined;
    }
  }

  /** Serves a keyword-only build (unless another finished meanwhile); the LanceDB table of an earlier one closes. */
  private serve(stored: StoredIndexVersion, terms: TermsTable): void {
    if (this.stored !== stored) return;
    this.table?.close();
    [this.table, this.terms, this.keywords] = [undefined, terms, terms.keywords];
    warnIfHeapTight(this.logger, this.keywords.size);
  }

  private connection(): Promise<Connection> {
    if (this.db) return Promise.resolve(this.db);
    return (this.connecting ??= openConnection(this.dir).then((db) => (this.db = db)));
  }

  get version(): StoredIndexVersion | undefined {
    return this.stored;
  }

  /** Serving searches (an index exists, even if an older version is being replaced); `load` before searching. */
  get ready(): boolean {
    return !!this.stored;
  }

  async rowCount(): Promise<number> {
    await this.load();
    if (this.terms) return this.terms.count;
    return this.table ? this.table.countRows() : 0;
  }

  /** BM25 top-N over the terms, for one person and agent. */
  keyword(scope: string, agentId: string, terms: string[], limit: number): KeywordHit[] {
    if ((!this.table && !this.terms) || terms.length === 0) return [];
    return this.keywords.search(scope, agentId, terms, limit);
  }

  /** Cosine top-N (ids; recall reads the text of the winners from Postgres); empty when this build has no vectors. */
  async vector(scope: string, agentId: string, vector: number[], limit: number): Promise<KeywordHit[]> {
    await this.load();
    if (!this.table || !this.stored?.dims) return [];
    if (vector.length !== this.stored.dims) throw new Error(`query vector has ${vector.length} dimensions, the index ${this.stored.dims}`);
    return nearestRows(this.table, scope, agentId, vector, limit);
  }

  /**
   * Replaces every row of these memories with `rows` (an empty list deletes them). Idempotent. A memory
   * left with no rows (forgotten, or its file deleted) is erased from the files too (lance-erase.ts).
   */
  apply(memoryIds: string[], rows: IndexRow[]): Promise<void> {
    return this.serialize(async () => {
      await this.load();
      if (this.terms) return this.terms.apply(memoryIds, rows);
      const table = this.table;
      if (!table) throw new Error('the memory index is not open');
      // A delete scans the table; memories the index has never seen (most of an ingest) need none.
      const present = memoryIds.filter((id) => this.keywords.has(id));
      const kept = new Set(rows.map((r) => r.memoryId));
      const gone = present.filter((id) => !kept.has(id));
      const fragments = gone.length ? await fragmentsHolding(table, gone) : [];
      for (let i = 0; i < present.length; i += 500) await table.delete(memoryFilter(present.slice(i, i + 500)));
      if (fragments.length) {
        await rewriteFragments(table, fragments);
        this.schedulePurge();
      }
      if (rows.length) await table.add(toArrow(rows, this.stored?.dims ?? null));
      for (const id of memoryIds) this.keywords.removeMemory(id);
      for (const r of rows) this.keywords.add(r);
      this.sinceOptimize += rows.length + memoryIds.length;
      this.writesSinceOptimize++;
      if (this.sinceOptimize >= OPTIMIZE_AFTER_ROWS || this.writesSinceOptimize >= OPTIMIZE_AFTER_WRITES) await this.optimizeNow(table);
    });
  }

  /** Folds recent writes into the indices and drops old versions (also run periodically when idle). */
  optimize(): Promise<void> {
    return this.serialize(async () => {
      if (this.table && this.sinceOptimize > 0) await this.optimizeNow(this.table);
    });
  }

  /**
   * The erased rows' old fragment files are still referenced by versions younger than the cleanup
   * grace; one pass after it has passed removes them.
   */
  private schedulePurge(): void {
    clearTimeout(this.purgeTimer);
    this.purgeTimer = setTimeout(() => {
      this.purgeTimer = undefined;
      void this.serialize(async () => {
        if (this.table) await this.optimizeNow(this.table);
      }).catch((e: unknown) => this.logger.warn(`memory index cleanup after a forget: ${(e as Error).message}`));
    }, CLEANUP_GRACE_MS + 1_000).unref();
  }

  /** Compacts the small fragments, folds new rows into the indices, drops old versions, then replaces the connection. */
  private async optimizeNow(table: Table): Promise<void> {
    this.sinceOptimize = 0;
    this.writesSinceOptimize = 0;
    await table.optimize({ cleanupOlderThan: new Date(Date.now() - CLEANUP_GRACE_MS) });
    // A table built empty has no scalar indices yet.
    if (!(await hasScalarIndices(table)) && (await table.countRows()) > 0) await createScalarIndices(table);
    await ensureVectorIndex(table, this.stored?.dims);
    if (!this.building) await this.reconnect();
  }

  /** A fresh connection and table handle (see OPTIMIZE_AFTER_WRITES); the old ones close once their queries are done. */
  private async reconnect(): Promise<void> {
    const name = this.stored?.table;
    if (!name) return;
    const db = await openConnection(this.dir);
    const table = await db.openTable(name);
    const old = { db: this.db, table: this.table };
    this.db = db;
    this.table = table;
    setTimeout(() => {
      old.table?.close();
      old.db?.close();
    }, CLOSE_GRACE_MS).unref();
  }

  /**
   * A new build: rows go into a fresh table while the current one keeps serving; `finish` switches
   * searches over and drops the old table.
   */
  async startBuild(dims: number | null): Promise<IndexBuild> {
    if (!this.dir) throw new Error('the memory index is not open');
    if (!dims) return this.startTermsBuild();
    const db = await this.connection();
    // The build's table lives on this connection: it is not replaced until the build ends.
    this.building = true;
    return startLanceBuild(db, dims, {
      abandoned: () => (this.building = false),
      finish: (name, table, keywords, version) =>
        this.serialize(async () => {
          this.building = false;
          await sealBuild(table, dims);
          this.publish({ ...version, dims, table: name, builtAt: new Date().toISOString() });
          this.table = table;
          this.terms = undefined;
          this.keywords = keywords;
          this.sinceOptimize = 0;
          this.writesSinceOptimize = 0;
          // The build it replaced, and any a crash mid-rebuild left.
          await dropBuildsExcept(this.dir, name, this.db);
          // The connection that wrote the build holds memory for every version it made.
          await this.reconnect();
          warnIfHeapTight(this.logger, this.keywords.size);
        }),
    });
  }

  /** A keyword-only rebuild: a terms file, without loading LanceDB. */
  private startTermsBuild(): IndexBuild {
    const name = `terms_${Date.now()}`;
    return startTermsBuild(this.dir, name, (terms, version) =>
      this.serialize(async () => {
        this.publish({ ...version, dims: null, table: name, builtAt: new Date().toISOString() });
        this.serve(this.stored!, terms);
        await dropBuildsExcept(this.dir, name, this.db);
      }),
    );
  }

  /** From now on this build is the one a start opens. */
  private publish(stored: StoredIndexVersion): void {
    writeStoredVersion(this.dir, stored);
    this.stored = stored;
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** Whether an index-version file says the build is for the expected version. */
  matches(expected: IndexVersion): boolean {
    const s = this.stored;
    // A keyword-only build in a LanceDB table (before issue 23) is rebuilt once as a terms file.
    const stored = !!s && isTermsTable(s.table) === !s.dims;
    return stored && s.schema === expected.schema && s.tokenizer === expected.tokenizer && s.embedding === expected.embedding;
  }

  /** After the worker stopped (IndexWorker.beforeApplicationShutdown): queued writes finish before the native handles close. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.race([Promise.all([this.writes, this.loading]), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    if (this.purgeTimer) {
      // Searches have stopped: an erase still waiting for its cleanup gets it now, without the grace.
      clearTimeout(this.purgeTimer);
      this.purgeTimer = undefined;
      await this.table
        ?.optimize({ cleanupOlderThan: new Date() })
        .catch((e: unknown) => this.logger.warn(`memory index cleanup after a forget: ${(e as Error).message}`));
    }
    this.table?.close();
    this.db?.close();
  }
}
