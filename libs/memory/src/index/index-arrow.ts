import type * as Arrow from 'apache-arrow';
import type { Data, Field, FixedSizeList, Float32, Schema, Table as ArrowTable } from 'apache-arrow';

/** apache-arrow loads with LanceDB, on the first index write (lance-module.ts), not at start-up. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const arrow = () => require('apache-arrow') as typeof Arrow;

/** One chunk in the derived index: what search needs, nothing a result shows. */
export interface IndexRow {
  chunkId: string;
  memoryId: string;
  scope: string;
  agentId: string;
  /** Output of the shared tokenizer, space-separated. */
  terms: string;
  vector?: ArrayLike<number> | null;
  /** The chunk's text, for a plugin's store (docs/plugins.md); LanceDB keeps only the terms. */
  text?: string;
}

/**
 * The LanceDB row layout: ids, the person/agent filter columns, the terms the keyword index is
 * loaded from, and the optional vector. Text and source are read from Postgres for the few chunks
 * a recall returns, in the same query that drops forgotten and superseded memories.
 */
export function schemaFor(dims: number | null): Schema {
  const { Field, FixedSizeList, Float32, Int64, Schema, Utf8 } = arrow();
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
export function toArrow(rows: IndexRow[], dims: number | null): ArrowTable {
  const { Float32, Int64, makeData, RecordBatch, Struct, Table, Utf8, vectorFromArray } = arrow();
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
    const type = schema.fields[schema.fields.length - 1].type as FixedSizeList<Float32>;
    children.push(makeData({ type, length: n, nullCount: nulls, nullBitmap: valid, child }));
  }
  const struct = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new Table(schema, [new RecordBatch(schema, struct)]);
}
