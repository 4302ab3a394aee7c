import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { migrationsDir, runMigrations, startEmbeddedPostgres } from '@nestclaw/db';
import { packageRoot } from '@nestclaw/common';
import { parsePrismaSchema } from '../support/prisma-schema.parser';
import { createTestDatabase, seedEmbeddedHome, TestDatabase } from '../support/test-database';

/** Proves prisma/schema/*.prisma and prisma/migrations/*.sql describe the same database. */
describe('schema.prisma and the SQL migrations', () => {
  let db: TestDatabase;
  let pool: Pool;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let home: string | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    let url = db.url;
    if (!url) {
      home = mkdtempSync(join(tmpdir(), 'nestclaw-drift-'));
      // The run's template was made by this same runMigrations over the same files: opening a copy
      // checks the same result without initdb in WASM per file (runMigrations below is then a no-op).
      seedEmbeddedHome(home);
      const embedded = await startEmbeddedPostgres(home, () => undefined);
      url = embedded.url;
      stopEmbedded = embedded.stop;
    }
    pool = new Pool({ connectionString: url, max: 2 });
    await runMigrations(pool, migrationsDir());
  });

  afterAll(async () => {
    await pool.end();
    await stopEmbedded?.();
    await db.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const expected = parsePrismaSchema(join(packageRoot(), 'prisma', 'schema'));

  it('has the same tables', async () => {
    const { rows } = await pool.query<{ t: string }>(
      `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_migrations' ORDER BY 1`,
    );
    expect(rows.map((r) => r.t)).toEqual(expected.map((t) => t.name).sort());
  });

  it.each(expected.map((t) => [t.name, t] as const))(
    'table %s has the columns, types and nullability of the schema',
    async (_name, table) => {
      const { rows } = await pool.query<{ column_name: string; type: string; nullable: boolean }>(
        `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relname = $1 AND a.attnum > 0 AND NOT a.attisdropped`,
        [table.name],
      );
      const actual = Object.fromEntries(rows.map((r) => [r.column_name, { type: r.type, nullable: r.nullable }]));
      expect(actual).toEqual(Object.fromEntries(table.columns));
    },
  );

  it.each(expected.map((t) => [t.name, t] as const))(
    'table %s has the primary key, unique constraints and indexes of the schema',
    async (_name, table) => {
      const { rows } = await pool.query<{ cols: string[]; is_unique: boolean; is_primary: boolean }>(
        `SELECT array_agg(a.attname::text ORDER BY k.ord) AS cols, i.indisunique AS is_unique, i.indisprimary AS is_primary
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
        WHERE c.relname = $1 GROUP BY i.indexrelid, i.indisunique, i.indisprimary`,
        [table.name],
      );
      const key = (cols: string[]) => cols.join(',');
      expect(rows.filter((r) => r.is_primary).map((r) => key(r.cols))).toEqual([key(table.primaryKey)]);
      expect(
        rows
          .filter((r) => r.is_unique && !r.is_primary)
          .map((r) => key(r.cols))
          .sort(),
      ).toEqual(table.uniques.map(key).sort());
      expect(
        rows
          .filter((r) => !r.is_unique)
          .map((r) => key(r.cols))
          .sort(),
      ).toEqual(table.indexes.map(key).sort());
    },
  );
});
