import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the Prisma schema says a table looks like, in PostgreSQL terms. */
export interface ExpectedTable {
  name: string;
  columns: Map<string, { type: string; nullable: boolean }>;
  primaryKey: string[];
  uniques: string[][];
  indexes: string[][];
}

const SCALARS: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Decimal: 'numeric(65,30)',
  Float: 'double precision',
  Bytes: 'bytea',
};

function nativeType(attr: string): string | undefined {
  const m = /@db\.(\w+)(?:\(([^)]*)\))?/.exec(attr);
  if (!m) return undefined;
  const args = m[2]?.replace(/\s/g, '');
  switch (m[1]) {
    case 'Uuid':
      return 'uuid';
    case 'Timestamptz':
      return `timestamp(${args ?? 6}) with time zone`;
    case 'Timestamp':
      return `timestamp(${args ?? 6}) without time zone`;
    case 'Decimal':
      return `numeric(${args})`;
    case 'VarChar':
      return args ? `character varying(${args})` : 'character varying';
    case 'Text':
      return 'text';
    case 'Real':
      return 'real';
    case 'SmallInt':
      return 'smallint';
    case 'Inet':
      return 'inet';
    case 'JsonB':
      return 'jsonb';
    default:
      return m[1].toLowerCase();
  }
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim().replace(/\(.*\)$/, ''))
    .filter(Boolean);

/** Parses the subset of the Prisma schema language nestclaw uses (models, @map, @@map, @db.*, indexes). */
export function parsePrismaSchema(dir: string): ExpectedTable[] {
  const text = readdirSync(dir)
    .filter((f) => f.endsWith('.prisma'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  const modelNames = new Set([...text.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1]));
  const tables: ExpectedTable[] = [];
  for (const m of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const body = m[2]
      .split('\n')
      .map((l) => l.replace(/\/\/.*$/, '').trim())
      .filter(Boolean);
    const table: ExpectedTable = { name: m[1], columns: new Map(), primaryKey: [], uniques: [], indexes: [] };
    const fieldToColumn = new Map<string, string>();
    for (const line of body) {
      if (line.startsWith('@@')) continue;
      const f = /^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
      if (!f) continue;
      const [, field, type, isList, optional, attrs] = f;
      if (modelNames.has(type)) continue; // relation field, no column
      const column = /@map\("([^"]+)"\)/.exec(attrs)?.[1] ?? field;
      fieldToColumn.set(field, column);
      let pgType = nativeType(attrs) ?? SCALARS[type];
      if (!pgType) throw new Error(`unsupported Prisma type ${type} in ${m[1]}.${field}`);
      if (isList) pgType = `${pgType}[]`;
      table.columns.set(column, { type: pgType, nullable: !!optional });
      if (/@id\b/.test(attrs)) table.primaryKey = [column];
      if (/@unique\b/.test(attrs)) table.uniques.push([column]);
    }
    const cols = (s: string) => list(s).map((f) => fieldToColumn.get(f) ?? f);
    for (const line of body) {
      const map = /^@@map\("([^"]+)"\)/.exec(line);
      if (map) table.name = map[1];
      const id = /^@@id\(\[([^\]]+)\]/.exec(line);
      if (id) table.primaryKey = cols(id[1]);
      const uq = /^@@unique\(\[([^\]]+)\]/.exec(line);
      if (uq) table.uniques.push(cols(uq[1]));
      const ix = /^@@index\(\[([^\]]+)\]/.exec(line);
      if (ix) table.indexes.push(cols(ix[1]));
    }
    tables.push(table);
  }
  return tables;
}
