import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScratchDatabase } from './scratch-database';

export interface TestDatabase {
  /** DATABASE_URL for the app, or undefined when the embedded database is used. */
  url: string | undefined;
  drop(): Promise<void>;
}

/** True when the suite runs against a real PostgreSQL server (see global-setup.ts). */
export const realPostgresAvailable = () => !!process.env.NESTCLAW_TEST_PG_ADMIN_URL;

/** A fresh, uniquely named database on the real server; or "use the embedded one". */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = process.env.NESTCLAW_TEST_PG_ADMIN_URL;
  if (!admin) return { url: undefined, drop: async () => undefined };
  const { url, drop } = await createScratchDatabase(admin, 'nestclaw_test');
  return { url, drop };
}

/**
 * On the embedded database: gives a fresh $NESTCLAW_HOME a copy of the run's migrated data directory
 * (test/support/global-setup.ts), so the gateway opens it instead of running initdb and every
 * migration. Returns false (and does nothing) on a server or when there is no template.
 */
export function seedEmbeddedHome(home: string): boolean {
  const template = process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE;
  const dir = process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE_DIR ?? 'pgdata';
  if (realPostgresAvailable() || !template || existsSync(join(home, dir))) return false;
  cpSync(template, join(home, dir), { recursive: true });
  return true;
}
