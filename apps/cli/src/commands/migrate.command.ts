import { Command } from 'commander';
import { DatabaseService } from '@nestclaw/db';
import { createCliContext, ProgressLogger } from '../cli-context';
import { CliModule } from '../cli.module';
import { finish, messageOf, note, out, red } from '../cli-output';

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (the gateway also applies them when it starts)')
    .action(async () => finish(await migrate()));
}

async function migrate(): Promise<number> {
  const started = performance.now();
  let app;
  try {
    // The runner reports each migration through the "Database" logger; those lines are the progress.
    app = await createCliContext(CliModule.forMigrate(), new ProgressLogger(['Database']));
  } catch (e) {
    note(red(`✖ migrate failed: ${messageOf(e)}`));
    return 1;
  }
  try {
    const db = app.get(DatabaseService);
    const where = db.describe();
    const report = db.migrations ?? { applied: [], alreadyApplied: 0 };
    const ms = Math.round(performance.now() - started);
    out(
      report.applied.length
        ? `migrated ${where}: ${report.applied.length} applied now, ${report.alreadyApplied} already applied (${ms} ms)`
        : `${where} is up to date: all ${report.alreadyApplied} migration(s) already applied`,
    );
    return 0;
  } finally {
    await app.close();
  }
}
