import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DatabaseService } from '@nestclaw/db';
import { testConfigService } from './test-config';

export interface IntDatabase {
  db: DatabaseService;
  /** Which database this is, for failure messages: a server database name or the embedded data directory. */
  where: string;
  close(): Promise<void>;
}

/**
 * A migrated database of this test file's own, cloned from the template made by the int tier's
 * global setup (test/support/int-global-setup.ts): `CREATE DATABASE ... TEMPLATE` on a server, a
 * copy of the migrated data directory on the embedded database. Tests in the file share it, so
 * each makes its own uniquely named data (`uniqueId`) and never counts whole tables.
 */
export async function openIntDatabase(): Promise<IntDatabase> {
  // Specs report their own failures; the database's start-up lines would only be noise.
  Logger.overrideLogger(['error', 'warn']);
  const admin = process.env.NESTCLAW_TEST_PG_ADMIN_URL;
  const template = process.env.NESTCLAW_TEST_PG_TEMPLATE;
  const embeddedTemplate = process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE;
  if (admin && template) {
    const name = `nestclaw_int_${randomBytes(6).toString('hex')}`;
    await adminQuery(admin, `CREATE DATABASE ${name} TEMPLATE ${template}`);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    const db = await DatabaseService.connect(testConfigService({ database: { url: url.toString(), pool_size: 4 } }), { migrate: false });
    return {
      db,
      where: `database ${name}`,
      close: async () => {
        await db.onApplicationShutdown();
        await adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      },
    };
  }
  if (embeddedTemplate) {
    const home = mkdtempSync(join(tmpdir(), 'nestclaw-int-'));
    cpSync(embeddedTemplate, join(home, process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE_DIR ?? 'pgdata'), { recursive: true });
    const db = await DatabaseService.connect(testConfigService({}, home), { migrate: false });
    return {
      db,
      where: `embedded database in ${home}`,
      close: async () => {
        await db.onApplicationShutdown();
        rmSync(home, { recursive: true, force: true });
      },
    };
  }
  throw new Error('No int-tier template database: run integration specs through `npm run test:int` (jest --selectProjects int)');
}

async function adminQuery(admin: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A short random suffix so each test's rows are its own. */
export function uniqueId(prefix = 't'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}
