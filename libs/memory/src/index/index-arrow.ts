import {
  Bool,
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

export interface IndexRow {
  chunkId: string;
  memoryId: string;
  scope: string;
  agentId: string;
  /** Output of the shared tokenizer, space-separated. */
  terms: string;
  text: string;
  source: string;
  sourceKey: string | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  superseded: boolean;
  vector?: ArrayLike<number> | null;
}

/** A chunk as recall shows it, read from the index (no Postgres round trip). */
export interface IndexedChunk {
  chunkId: string;
  memoryId: string;
  text: string;
  source: string;
  sourceKey: string | null;
  createdAt: number;
  superseded: boolean;
}

export interface ResultRow {
  chunk_id: bigint;
  memory_id: string;
  text: string;
  source: string;
  source_key: string | null;
  created_at: bigint;
  superseded: boolean;
}

export const toChunk = (r: ResultRow): IndexedChunk => ({
  chunkId: String(r.chunk_id),
  memoryId: r.memory_id,
  text: r.text,
  source: r.source,
  sourceKey: r.source_key,
  createdAt: Number(r.created_at),
  superseded: r.superseded,
});

/**
 * The LanceDB row layout. Besides what search needs (scope, agent, terms, vector) each row carries
 * what a recall result shows (text, source, created-at, memory id, superseded), so recall answers
 * from the index alone and Postgres is asked only which candidates were forgotten or replaced since.
 */
export function schemaFor(dims: number | null): Schema {
  const fields: Field[] = [
    new Field('chunk_id', new Int64()),
    new Field('memory_id', new Utf8()),
    new Field('scope', new Utf8()),
    new Field('agent_id', new Utf8()),
    new Field('terms', new Utf8()),
    new Field('text', new Utf8()),
    new Field('source', new Utf8()),
    new Field('source_key', new Utf8(), true),
    /** Milliseconds since the epoch. */
    new Field('created_at', new Int64()),
    new Field('superseded', new Bool()),
  ];
  if (dims) fields.push(new Field('vector', new FixedSizeList(dims, new Field('item', new Float32(), true)), true));
  return new Schema(fields);
}

/** The columns a recall result is made of. */
export const RESULT_COLUMNS = ['chunk_id', 'memory_id', 'text', 'source', 'source_key', 'created_at', 'superseded'];

/**
 * Rows as one Arrow record batch built from typed arrays: letting LanceDB convert plain objects
 * with number[] vectors cost ~0.2 ms a row here, which made a 100k rebuild take minutes.
 */
export function toArrow(rows: IndexRow[], dims: number | null): ArrowTable {
  const schema = schemaFor(dims);
  const n = rows.length;
  const text = (pick: (r: IndexRow) => string | null) => vectorFromArray(rows.map(pick), new Utf8()).data[0];
  const int64 = (pick: (r: IndexRow) => number) =>
    makeData({ type: new Int64(), length: n, data: BigInt64Array.from(rows, (r) => BigInt(pick(r))) });
  const children: Data[] = [
    int64((r) => Number(r.chunkId)),
    text((r) => r.memoryId),
    text((r) => r.scope),
    text((r) => r.agentId),
    text((r) => r.terms),
    text((r) => r.text),
    text((r) => r.source),
    text((r) => r.sourceKey),
    int64((r) => r.createdAt),
    vectorFromArray(
      rows.map((r) => r.superseded),
      new Bool(),
    ).data[0],
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
    const type = schema.fields[schema.fields.length - 1].type as FixedSizeList<Float32>;
    children.push(makeData({ type, length: n, nullCount: nulls, nullBitmap: valid, child }));
  }
  const struct = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new ArrowTable(schema, [new RecordBatch(schema, struct)]);
}
