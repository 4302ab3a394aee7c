import { dropTemplates } from './database-template';
import { printSkipSummary } from './host-tools';

/** Removes the migrated templates a global setup built for this run, and lists the suites skipped for a missing host tool. */
export default async function globalTeardown(): Promise<void> {
  await dropTemplates();
  printSkipSummary();
}
