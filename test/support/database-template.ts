import './lib-aliases';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client, Pool } from 'pg';
import { createScratchDatabase } from './scratch-database';
import { migrationsDir, runMigrations, startEmbeddedPostgres } from '@nestclaw/db';

/**
 * Migrated templates, built once per run by a global setup (which runs outside jest's module
 * registry, hence lib-aliases). Workers find them through NESTCLAW_TEST_PG_TEMPLATE (a database on
 * the server) and NESTCLAW_TEST_EMBEDDED_TEMPLATE (an embedded data directory).
 */
export async function buildServerTemplate(admin: string): Promise<void> {
  const template = await createScratchDatabase(admin, 'nestclaw_tpl');
  const pool = new Pool({ connectionString: template.url, max: 1 });
  try {
    await runMigrations(pool, migrationsDir());
  } finally {
    await pool.end();
  }
  process.env.NESTCLAW_TEST_PG_TEMPLATE = template.name;
}

export async function buildEmbeddedTemplate(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-template-'));
  const embedded = await startEmbeddedPostgres(home, () => undefined);
  const pool = new Pool({ connectionString: embedded.url, max: 1 });
  try {
    await runMigrations(pool, migrationsDir());
  } finally {
    await pool.end();
    await embedded.stop();
  }
  // The data directory's place under $NESTCLAW_HOME depends on the engine (postgres/ native, pgdata/ PGlite).
  process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE = embedded.dataDir;
  process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE_DIR = relative(home, embedded.dataDir);
}

/** Drops what the build functions made (clones are dropped by the files that made them). */
export async function dropTemplates(): Promise<void> {
  const admin = process.env.NESTCLAW_TEST_PG_ADMIN_URL;
  const template = process.env.NESTCLAW_TEST_PG_TEMPLATE;
  if (admin && template) {
    const client = new Client({ connectionString: admin });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await client.end();
  }
  const embedded = process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE;
  if (embedded) {
    const { rmSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    rmSync(dirname(embedded), { recursive: true, force: true });
  }
}
