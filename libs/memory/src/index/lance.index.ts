import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Connection, connect, Index, Table } from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Int64, Schema, Utf8 } from 'apache-arrow';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IndexVersion, StoredIndexVersion } from './index-version';

export interface IndexRow {
  chunkId: string;
  memoryId: string;
  scope: string;
  agentId: string;
  /** Output of the shared tokenizer, space-separated; LanceDB only splits it on whitespace. */
  terms: string;
  vector?: number[] | null;
}

/** Rows added between two optimize passes (which fold new rows into the full-text and vector indices). */
const OPTIMIZE_AFTER_ROWS = 5_000;
/** Vector ANN index from this many rows on; below it a flat scan is fast and exact. */
const VECTOR_INDEX_MIN_ROWS = 20_000;

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const uuidList = (ids: string[]) => ids.map((id) => quote(id)).join(', ');

/**
 * The derived hybrid index: one LanceDB table of chunks (terms for BM25 full-text search, an
 * optional vector column) under `memory.index_dir`, plus `index-version.json` naming the table
 * and what it was built with. Holds no truth: anything here can be rebuilt from Postgres.
 */
@Injectable()
export class LanceIndex implements OnApplicationShutdown {
  private readonly logger = new Logger('MemoryIndex');
  private db: Connection | undefined;
  private dir = '';
  private table: Table | undefined;
  private stored: StoredIndexVersion | undefined;
  private sinceOptimize = 0;
  private writes: Promise<unknown> = Promise.resolve();

  async open(dir: string): Promise<StoredIndexVersion | undefined> {
    // LanceDB's Rust logger prints deprecation notes on stderr; errors still reach us as exceptions.
    process.env.LANCEDB_LOG ??= 'error';
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
    this.db = await connect(dir);
    const file = join(dir, 'index-version.json');
    if (!existsSync(file)) return undefined;
    try {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredIndexVersion;
      if (!(await this.db.tableNames()).includes(stored.table)) return undefined;
      this.table = await this.db.openTable(stored.table);
      this.stored = stored;
      return stored;
    } catch (e) {
      this.logger.warn(`the memory index at ${dir} cannot be opened (${(e as Error).message}); it will be rebuilt`);
      return undefined;
    }
  }

  get version(): StoredIndexVersion | undefined {
    return this.stored;
  }

  /** Serving searches (an index exists, even if an older version is being replaced). */
  get ready(): boolean {
    return !!this.table;
  }

  async rowCount(): Promise<number> {
    return this.table ? this.table.countRows() : 0;
  }

  /** BM25 top-N over the terms column, for one person and agent. */
  async keyword(scope: string, agentId: string, terms: string[], limit: number): Promise<string[]> {
    if (!this.table || terms.length === 0) return [];
    const rows = await this.table
      .search(terms.join(' '), 'fts', 'terms')
      .where(`scope = ${quote(scope)} AND agent_id = ${quote(agentId)}`)
      .select(['chunk_id', '_score'])
      .limit(limit)
      .toArray();
    return rows.map((r: { chunk_id: bigint }) => String(r.chunk_id));
  }

  /** Cosine top-N; empty when this build has no vectors. */
  async vector(scope: string, agentId: string, vector: number[], limit: number): Promise<string[]> {
    if (!this.table || !this.stored?.dims) return [];
    if (vector.length !== this.stored.dims) throw new Error(`query vector has ${vector.length} dimensions, the index ${this.stored.dims}`);
    const rows = await this.table
      .vectorSearch(vector)
      .distanceType('cosine')
      .where(`scope = ${quote(scope)} AND agent_id = ${quote(agentId)}`)
      .select(['chunk_id', '_distance'])
      .limit(limit)
      .toArray();
    return rows.map((r: { chunk_id: bigint }) => String(r.chunk_id));
  }

  /** Replaces every row of these memories with `rows` (an empty list deletes them). Idempotent. */
  apply(memoryIds: string[], rows: IndexRow[]): Promise<void> {
    return this.serialize(async () => {
      const table = this.table;
      if (!table) throw new Error('the memory index is not open');
      for (let i = 0; i < memoryIds.length; i += 500) await table.delete(`memory_id IN (${uuidList(memoryIds.slice(i, i + 500))})`);
      if (rows.length) await table.add(rows.map((r) => this.toRecord(r)));
      this.sinceOptimize += rows.length + memoryIds.length;
      if (this.sinceOptimize >= OPTIMIZE_AFTER_ROWS) await this.optimizeNow(table);
    });
  }

  /** Folds recent writes into the indices and drops old versions (also run periodically when idle). */
  optimize(): Promise<void> {
    return this.serialize(async () => {
      if (this.table && this.sinceOptimize > 0) await this.optimizeNow(this.table);
    });
  }

  private async optimizeNow(table: Table): Promise<void> {
    this.sinceOptimize = 0;
    await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    await this.ensureVectorIndex(table);
  }

  /**
   * A new build: rows go into a fresh table while the current one keeps serving; `finish` switches
   * searches over and drops the old table.
   */
  async startBuild(dims: number | null): Promise<IndexBuild> {
    const db = this.db;
    if (!db) throw new Error('the memory index is not open');
    const name = `chunks_${Date.now()}`;
    const fields: Field[] = [
      new Field('chunk_id', new Int64()),
      new Field('memory_id', new Utf8()),
      new Field('scope', new Utf8()),
      new Field('agent_id', new Utf8()),
      new Field('terms', new Utf8()),
    ];
    if (dims) fields.push(new Field('vector', new FixedSizeList(dims, new Field('item', new Float32(), true)), true));
    const table = await db.createEmptyTable(name, new Schema(fields), { mode: 'overwrite' });
    return {
      add: async (rows) => {
        if (rows.length) await table.add(rows.map((r) => this.toRecord(r, dims)));
      },
      finish: (version) =>
        this.serialize(async () => {
          await table.createIndex('terms', {
            config: Index.fts({
              baseTokenizer: 'whitespace',
              lowercase: false,
              stem: false,
              removeStopWords: false,
              asciiFolding: false,
              withPosition: false,
            }),
            replace: true,
          });
          await table.createIndex('scope', { config: Index.bitmap(), replace: true });
          await this.ensureVectorIndex(table, dims);
          const stored: StoredIndexVersion = { ...version, dims, table: name, builtAt: new Date().toISOString() };
          const file = join(this.dir, 'index-version.json');
          writeFileSync(`${file}.tmp`, JSON.stringify(stored, null, 2));
          renameSync(`${file}.tmp`, file);
          const old = this.stored?.table;
          this.table = table;
          this.stored = stored;
          this.sinceOptimize = 0;
          if (old && old !== name) await db.dropTable(old).catch(() => undefined);
          await this.dropStrays(name);
        }),
      abandon: async () => {
        await db.dropTable(name).catch(() => undefined);
      },
    };
  }

  /** Tables left by builds that never finished (a crash mid-rebuild). */
  private async dropStrays(keep: string): Promise<void> {
    for (const t of await this.db!.tableNames())
      if (t !== keep && t.startsWith('chunks_')) await this.db!.dropTable(t).catch(() => undefined);
  }

  private async ensureVectorIndex(table: Table, dims = this.stored?.dims): Promise<void> {
    if (!dims) return;
    const rows = await table.countRows();
    if (rows < VECTOR_INDEX_MIN_ROWS) return;
    const indices = await table.listIndices();
    if (indices.some((i) => i.columns.includes('vector'))) return;
    await table.createIndex('vector', {
      config: Index.ivfPq({
        distanceType: 'cosine',
        numPartitions: Math.max(16, Math.round(Math.sqrt(rows))),
        numSubVectors: Math.max(1, Math.floor(dims / 8)),
      }),
    });
  }

  private toRecord(r: IndexRow, dims = this.stored?.dims): Record<string, unknown> {
    const record: Record<string, unknown> = {
      chunk_id: BigInt(r.chunkId),
      memory_id: r.memoryId,
      scope: r.scope,
      agent_id: r.agentId,
      terms: r.terms,
    };
    if (dims) record.vector = r.vector && r.vector.length === dims ? r.vector : null;
    return record;
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** Whether an index-version file says the build is for the expected version. */
  matches(expected: IndexVersion): boolean {
    const s = this.stored;
    return !!s && s.schema === expected.schema && s.tokenizer === expected.tokenizer && s.embedding === expected.embedding;
  }

  onApplicationShutdown(): void {
    this.table?.close();
    this.db?.close();
  }
}

export interface IndexBuild {
  add(rows: IndexRow[]): Promise<void>;
  finish(version: IndexVersion): Promise<void>;
  abandon(): Promise<void>;
}
