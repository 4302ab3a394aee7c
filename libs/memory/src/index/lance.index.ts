import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Connection, connect, Index, Table } from '@lancedb/lancedb';
import {
  Data,
  Field,
  FixedSizeList,
  Float32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table as ArrowTable,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IndexVersion, StoredIndexVersion } from './index-version';
import { KeywordIndex } from './keyword.index';

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
 * The derived hybrid index: one LanceDB table of chunks (the shared tokenizer's terms and an
 * optional vector column) under `memory.index_dir`, plus `index-version.json` naming the table
 * and what it was built with; vector search runs in LanceDB, BM25 in the in-memory KeywordIndex
 * loaded from the terms column. Holds no truth: anything here can be rebuilt from Postgres.
 */
@Injectable()
export class LanceIndex implements OnApplicationShutdown {
  private readonly logger = new Logger('MemoryIndex');
  private db: Connection | undefined;
  private dir = '';
  private table: Table | undefined;
  private keywords = new KeywordIndex();
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
      const table = await this.db.openTable(stored.table);
      this.keywords = await loadKeywords(table);
      this.table = table;
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

  /** BM25 top-N over the terms, for one person and agent. */
  keyword(scope: string, agentId: string, terms: string[], limit: number): string[] {
    if (!this.table || terms.length === 0) return [];
    return this.keywords.search(scope, agentId, terms, limit);
  }

  /** Cosine top-N; empty when this build has no vectors. */
  async vector(scope: string, agentId: string, vector: number[], limit: number): Promise<string[]> {
    if (!this.table || !this.stored?.dims) return [];
    if (vector.length !== this.stored.dims) throw new Error(`query vector has ${vector.length} dimensions, the index ${this.stored.dims}`);
    const rows = await this.table
      .vectorSearch(vector)
      .distanceType('cosine')
      // Prefilter on the bitmap-indexed scope only; the agent is checked when hits are re-read from Postgres.
      .where(`scope = ${quote(scope)}`)
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
      if (rows.length) await table.add(toArrow(rows, this.stored?.dims ?? null));
      for (const id of memoryIds) this.keywords.removeMemory(id);
      for (const r of rows) this.keywords.add(r);
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
    const table = await db.createEmptyTable(name, schemaFor(dims), { mode: 'overwrite' });
    const keywords = new KeywordIndex();
    return {
      add: async (rows) => {
        if (rows.length) await table.add(toArrow(rows, dims));
        for (const r of rows) keywords.add(r);
      },
      finish: (version) =>
        this.serialize(async () => {
          await table.optimize({ cleanupOlderThan: new Date() });
          if ((await table.countRows()) > 0) await table.createIndex('scope', { config: Index.bitmap(), replace: true });
          await this.ensureVectorIndex(table, dims);
          const stored: StoredIndexVersion = { ...version, dims, table: name, builtAt: new Date().toISOString() };
          const file = join(this.dir, 'index-version.json');
          writeFileSync(`${file}.tmp`, JSON.stringify(stored, null, 2));
          renameSync(`${file}.tmp`, file);
          const old = this.stored?.table;
          this.table = table;
          this.keywords = keywords;
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
      config: Index.ivfFlat({
        distanceType: 'cosine',
        numPartitions: Math.max(16, Math.round(Math.sqrt(rows) / 2)),
      }),
    });
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

  /** After the worker stopped (IndexWorker.beforeApplicationShutdown): queued writes finish before the native handles close. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.race([this.writes, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    this.table?.close();
    this.db?.close();
  }
}

function schemaFor(dims: number | null): Schema {
  const fields: Field[] = [
    new Field('chunk_id', new Int64()),
    new Field('memory_id', new Utf8()),
    new Field('scope', new Utf8()),
    new Field('agent_id', new Utf8()),
    new Field('terms', new Utf8()),
  ];
  if (dims) fields.push(new Field('vector', new FixedSizeList(dims, new Field('item', new Float32(), true)), true));
  return new Schema(fields);
}

/**
 * Rows as one Arrow record batch built from typed arrays: letting LanceDB convert plain objects
 * with number[] vectors cost ~0.2 ms a row here, which made a 100k rebuild take minutes.
 */
function toArrow(rows: IndexRow[], dims: number | null): ArrowTable {
  const schema = schemaFor(dims);
  const n = rows.length;
  const text = (pick: (r: IndexRow) => string) => vectorFromArray(rows.map(pick), new Utf8()).data[0];
  const children: Data[] = [
    makeData({ type: new Int64(), length: n, data: BigInt64Array.from(rows, (r) => BigInt(r.chunkId)) }),
    text((r) => r.memoryId),
    text((r) => r.scope),
    text((r) => r.agentId),
    text((r) => r.terms),
  ];
  if (dims) {
    const flat = new Float32Array(n * dims);
    const valid = new Uint8Array(Math.ceil(n / 8));
    let nulls = 0;
    rows.forEach((r, i) => {
      if (r.vector && r.vector.length === dims) {
        flat.set(r.vector, i * dims);
        valid[i >> 3] |= 1 << (i & 7);
      } else nulls++;
    });
    const child = makeData({ type: new Float32(), length: n * dims, data: flat });
    const type = schema.fields[5].type as FixedSizeList<Float32>;
    children.push(makeData({ type, length: n, nullCount: nulls, nullBitmap: valid, child }));
  }
  const struct = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new ArrowTable(schema, [new RecordBatch(schema, struct)]);
}

/** The keyword index is derived from the table's terms column: no re-tokenizing at start-up. */
async function loadKeywords(table: Table): Promise<KeywordIndex> {
  const keywords = new KeywordIndex();
  const rows = (await table.query().select(['chunk_id', 'memory_id', 'scope', 'agent_id', 'terms']).toArray()) as {
    chunk_id: bigint;
    memory_id: string;
    scope: string;
    agent_id: string;
    terms: string;
  }[];
  for (const r of rows)
    keywords.add({ chunkId: String(r.chunk_id), memoryId: r.memory_id, scope: r.scope, agentId: r.agent_id, terms: r.terms });
  return keywords;
}

export interface IndexBuild {
  add(rows: IndexRow[]): Promise<void>;
  finish(version: IndexVersion): Promise<void>;
  abandon(): Promise<void>;
}
