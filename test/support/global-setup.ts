import { Client } from 'pg';

/**
 * Decides once which PostgreSQL the suite uses: the machine's server (CI starts it) when one
 * answers at NESTCLAW_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres), else the
 * embedded one. Workers read the choice from NESTCLAW_TEST_PG_ADMIN_URL ("" = embedded).
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.NESTCLAW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    process.env.NESTCLAW_TEST_PG_ADMIN_URL = url;
    process.stdout.write(`\n[nestclaw tests] using PostgreSQL at ${url.replace(/:[^:@/]+@/, ':***@')}\n`);
  } catch {
    process.env.NESTCLAW_TEST_PG_ADMIN_URL = '';
    process.stdout.write('\n[nestclaw tests] no PostgreSQL server answered; using the embedded database\n');
  } finally {
    await client.end().catch(() => undefined);
  }
}
