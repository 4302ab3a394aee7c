import { Command } from 'commander';
import { CronService } from '@nestclaw/agent';
import { dim, finish, messageOf, note, out, red } from '../cli-output';
import { withServices } from './pairing.context';

/**
 * The owner's view of scheduled jobs; works whether the gateway runs or not (a running gateway is
 * woken by the NOTIFY the write sends; on the embedded PGlite database, at its next safety poll).
 */
async function withCron(fn: (cron: CronService) => Promise<void>): Promise<void> {
  try {
    await withServices((app) => fn(app.get(CronService)));
    finish(0);
  } catch (e) {
    note(red(`✖ ${messageOf(e)}`));
    finish(1);
  }
}

const describe = (s: unknown) => JSON.stringify(s);

export function cronCommand(): Command {
  const cron = new Command('cron').description('scheduled jobs: messages the agent is asked at set times');
  cron
    .command('list')
    .description('every job with its schedule and next run')
    .option('--json', 'print as JSON')
    .action((opts: { json?: boolean }) =>
      withCron(async (c) => {
        const jobs = await c.list(undefined);
        if (opts.json) return out(JSON.stringify({ jobs }, null, 2));
        if (jobs.length === 0) return out('no scheduled jobs');
        for (const j of jobs) {
          out(
            `${j.id}  ${j.enabled ? 'next ' + (j.nextRunAt ? new Date(j.nextRunAt).toISOString() : '-') : 'done'}  agent ${j.agentId}  ${describe(j.schedule)}`,
          );
          out(dim(`  ${j.message.slice(0, 100)}`));
        }
      }),
    );
  cron
    .command('add')
    .description('schedule a message: one of --at, --every or --cron')
    .requiredOption('-m, --message <text>', 'what the agent is asked when it fires')
    .option('--at <time>', 'once, at an ISO-8601 time with offset (2026-12-01T09:00:00+08:00)')
    .option('--every <interval>', 'repeatedly (30m, 2h, 1d)')
    .option('--cron <expr>', 'cron expression ("0 9 * * 1")')
    .option('--tz <zone>', 'time zone for --cron', 'UTC')
    .option('-a, --agent <id>', 'agent', 'default')
    .option('-s, --session <id>', 'run in this session (default: its own)')
    .action((o: { message: string; at?: string; every?: string; cron?: string; tz: string; agent: string; session?: string }) =>
      withCron(async (c) => {
        const schedule = o.at ? { at: o.at } : o.every ? { every: o.every } : o.cron ? { cron: o.cron, tz: o.tz } : undefined;
        if (!schedule) throw new Error('give one of --at, --every or --cron');
        const job = await c.add({ schedule, message: o.message, agentId: o.agent, sessionId: o.session }, undefined);
        out(`added ${job.id}, first run ${job.nextRunAt ? new Date(job.nextRunAt).toISOString() : '-'}`);
      }),
    );
  cron
    .command('rm <id>')
    .description('remove a job')
    .action((id: string) =>
      withCron(async (c) => {
        await c.remove(id, undefined);
        out(`removed ${id}`);
      }),
    );
  cron
    .command('run <id>')
    .description("run a job now (the gateway's next tick runs it; its schedule continues after)")
    .action((id: string) =>
      withCron(async (c) => {
        await c.runNow(id, undefined);
        out(`job ${id} is due now; a running gateway runs it within scheduler.tick`);
      }),
    );
  return cron;
}
