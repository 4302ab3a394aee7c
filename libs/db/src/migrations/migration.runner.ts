import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { handleConnectionLoss } from '../connection-loss';

/** Any constant: every nestclaw process migrating the same database takes this advisory lock. */
const MIGRATION_LOCK_KEY = 72_771_010;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

export function listMigrations(dir: string): MigrationFile[] {
  if (!existsSync(dir)) throw new Error(`migrations folder not found: ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending `prisma/migrations/<name>/migration.sql` files in name order, each in its own
 * transaction, under an advisory lock so concurrent starts never race. A file whose content changed
 * after it was applied is reported, not re-run. A server that stops meanwhile (another process's
 * embedded server, a restart) fails the run through its query; it never crashes the process.
 */
export async function runMigrations(pool: Pool, dir: string, progress: (line: string) => void = () => undefined): Promise<MigrationReport> {
  const files = listMigrations(dir);
  handleConnectionLoss(pool);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS _migrations (
         name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM _migrations');
    const done = new Map(rows.map((r) => [r.name, r.checksum]));
    const pending = files.filter((f) => !done.has(f.name));
    for (const f of files) {
      const seen = done.get(f.name);
      if (seen && seen !== f.checksum) progress(`warning: ${f.name} changed after it was applied; add a new migration instead`);
    }
    const applied: string[] = [];
    for (const [i, f] of pending.entries()) {
      await client.query('BEGIN');
      try {
        // The embedded server (pglite-socket) gives every connection the same session, so the
        // advisory lock above does not exclude a second runner there; its transactions do run one
        // at a time, so whether a file is still pending is decided again inside the transaction.
        if ((await client.query('SELECT 1 FROM _migrations WHERE name = $1', [f.name])).rowCount) {
          await client.query('COMMIT');
          continue;
        }
        progress(`applying migration ${i + 1}/${pending.length}: ${f.name}`);
        await client.query(f.sql);
        await client.query('INSERT INTO _migrations (name, checksum) VALUES ($1, $2)', [f.name, f.checksum]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${f.name} failed and was rolled back: ${(e as Error).message}`);
      }
      applied.push(f.name);
    }
    return { applied, alreadyApplied: files.length - applied.length };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

/** Names of the shipped migrations (`names`, default: the files in `dir`) not applied to the database. */
export async function pendingMigrations(pool: Pool, dir: string, names = listMigrations(dir).map((f) => f.name)): Promise<string[]> {
  const exists = await pool.query<{ t: string | null }>(`SELECT to_regclass('_migrations')::text AS t`);
  if (!exists.rows[0].t) return names;
  const { rows } = await pool.query<{ name: string }>('SELECT name FROM _migrations');
  const done = new Set(rows.map((r) => r.name));
  return names.filter((n) => !done.has(n));
}
