import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { SKIP_LOG_ENV } from './host-tools';

/** Set NESTCLAW_TEST_DB=embedded to run the database-backed tiers on the embedded database even when a server answers. */
export const FORCE_EMBEDDED = 'NESTCLAW_TEST_DB';

/**
 * Decides once which PostgreSQL the suite uses: the machine's server (CI starts it) when one
 * answers at NESTCLAW_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres), else the
 * embedded one; NESTCLAW_TEST_DB=embedded skips the probe. Workers read the choice from
 * NESTCLAW_TEST_PG_ADMIN_URL ("" = embedded). Returns the admin URL, or undefined for embedded.
 */
export async function chooseTestDatabase(): Promise<string | undefined> {
  const say = (line: string) => process.stdout.write(`\n[nestclaw tests] ${line}\n`);
  if (process.env[FORCE_EMBEDDED] === 'embedded') {
    process.env.NESTCLAW_TEST_PG_ADMIN_URL = '';
    say(`${FORCE_EMBEDDED}=embedded: using the embedded database`);
    return undefined;
  }
  const url = process.env.NESTCLAW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    process.env.NESTCLAW_TEST_PG_ADMIN_URL = url;
    say(`using PostgreSQL at ${url.replace(/:[^:@/]+@/, ':***@')}`);
    return url;
  } catch {
    process.env.NESTCLAW_TEST_PG_ADMIN_URL = '';
    say('no PostgreSQL server answered; using the embedded database');
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The e2e tier: on a server each file makes its own database and the gateway migrates it at start.
 * On the embedded database, harnesses start from a copy of one migrated data directory instead of
 * running initdb and every migration again (the first-start path keeps its own test:
 * embedded-database.e2e-spec.ts starts from an empty directory).
 */
export default async function globalSetup(): Promise<void> {
  process.env[SKIP_LOG_ENV] = join(tmpdir(), `nestclaw-host-tool-skips-${process.pid}.log`);
  if (await chooseTestDatabase()) return;
  const started = performance.now();
  // Loaded only here: it pulls the db lib in through lib-aliases (global setup has no moduleNameMapper).
  const { buildEmbeddedTemplate } = await import('./database-template');
  await buildEmbeddedTemplate();
  process.stdout.write(`[nestclaw tests] migrated embedded template ready in ${Math.round(performance.now() - started)} ms
`);
}
