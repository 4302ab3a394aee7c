import { buildEmbeddedTemplate, buildServerTemplate } from './database-template';
import { chooseTestDatabase } from './global-setup';

/**
 * The integration tier's database: migrated once into a template, then cloned per test file
 * (`@nestclaw/testing` openIntDatabase): `CREATE DATABASE ... TEMPLATE` on a server, a copy of the
 * migrated PGlite data directory on the embedded database.
 */
export default async function intGlobalSetup(): Promise<void> {
  const started = performance.now();
  const admin = await chooseTestDatabase();
  if (admin) await buildServerTemplate(admin);
  else await buildEmbeddedTemplate();
  process.stdout.write(`[nestclaw tests] migrated template ready in ${Math.round(performance.now() - started)} ms\n`);
}
