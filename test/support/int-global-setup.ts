import './lib-aliases';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { migrationsDir, runMigrations, startEmbeddedPostgres } from '@nestclaw/db';
import { chooseTestDatabase } from './global-setup';

/**
 * The integration tier's database: migrated once into a template, then cloned per test file
 * (`@nestclaw/testing` openIntDatabase). On a server the template is a database and each clone is
 * `CREATE DATABASE ... TEMPLATE`; on the embedded database it is a migrated PGlite data directory
 * and each clone is a copy of it. Workers find it through the variables set here.
 */
export default async function intGlobalSetup(): Promise<void> {
  const started = performance.now();
  const admin = await chooseTestDatabase();
  if (admin) {
    const name = `nestclaw_tpl_${randomBytes(5).toString('hex')}`;
    const client = new Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    const pool = new Pool({ connectionString: url.toString(), max: 1 });
    try {
      await runMigrations(pool, migrationsDir());
    } finally {
      await pool.end();
    }
    process.env.NESTCLAW_TEST_PG_TEMPLATE = name;
  } else {
    const home = mkdtempSync(join(tmpdir(), 'nestclaw-int-template-'));
    const embedded = await startEmbeddedPostgres(home, () => undefined);
    const pool = new Pool({ connectionString: embedded.url, max: 1 });
    try {
      await runMigrations(pool, migrationsDir());
    } finally {
      await pool.end();
      await embedded.stop();
    }
    process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE = join(home, 'pgdata');
  }
  process.stdout.write(`[nestclaw tests] migrated template ready in ${Math.round(performance.now() - started)} ms\n`);
}
