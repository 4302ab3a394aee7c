import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client } from 'pg';

/** Drops the template made by int-global-setup.ts (each clone is dropped by the file that made it). */
export default async function intGlobalTeardown(): Promise<void> {
  const admin = process.env.NESTCLAW_TEST_PG_ADMIN_URL;
  const template = process.env.NESTCLAW_TEST_PG_TEMPLATE;
  if (admin && template) {
    const client = new Client({ connectionString: admin });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await client.end();
  }
  const embedded = process.env.NESTCLAW_TEST_EMBEDDED_TEMPLATE;
  if (embedded) rmSync(dirname(embedded), { recursive: true, force: true });
}
