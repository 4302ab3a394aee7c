import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Runs one statement on the server's admin database (CREATE / DROP DATABASE cannot run in a pool's transaction). */
async function adminStatement(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A uniquely named database on the server at `adminUrl` (a copy of `template` when given), for one
 * test file, template or benchmark; `drop()` removes it even while connections are still open.
 */
export async function createScratchDatabase(adminUrl: string, prefix: string, template?: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminStatement(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => adminStatement(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined),
  };
}

/** The same, or undefined when no server answers at `adminUrl` (benchmarks then use the embedded database). */
export async function tryScratchDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase | undefined> {
  try {
    await adminStatement(adminUrl, 'SELECT 1');
  } catch {
    return undefined;
  }
  return createScratchDatabase(adminUrl, prefix);
}
