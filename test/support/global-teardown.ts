import { dropTemplates } from './database-template';

/** Removes the migrated templates a global setup built for this run. */
export default async function globalTeardown(): Promise<void> {
  await dropTemplates();
}
