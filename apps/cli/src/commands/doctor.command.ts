import { Command } from 'commander';
import { isNestclawError } from '@nestclaw/common';
import { DoctorCheck, DoctorReport, DoctorService } from '@nestclaw/doctor';
import { askGateway } from '../chat/gateway-doctor.client';
import { createCliContext } from '../cli-context';
import { CliModule } from '../cli.module';
import { dim, finish, green, messageOf, out, red, yellow } from '../cli-output';

interface DoctorOptions {
  json?: boolean;
  local?: boolean;
  url?: string;
}

export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      'check configuration, database, migrations, model providers and the token; asks the running gateway when one answers, else checks locally; exit 1 if any check fails',
    )
    .option('--json', 'print the report as JSON')
    .option('--local', "check this command's own configuration and environment, not the running gateway's")
    .option('--url <url>', 'the gateway to ask (default: the one started from $NESTCLAW_HOME, else server.host/port from config)')
    .action(async (opts: DoctorOptions) => finish(await doctor(opts)));
}

async function doctor(opts: DoctorOptions): Promise<number> {
  // The gateway's own report describes the process that serves users (its config, its environment).
  const remote = opts.local ? { tried: 'skipped (--local)' } : await askGateway(opts.url);
  const report = 'report' in remote ? remote.report : await runChecks();
  const source = 'report' in remote ? `the running gateway at ${remote.url}` : `local checks (gateway: ${remote.tried})`;
  if (opts.json) out(JSON.stringify({ source, ...report }, null, 2));
  else print(source, report);
  return report.ok ? 0 : 1;
}

async function runChecks(): Promise<DoctorReport> {
  let app;
  try {
    app = await createCliContext(CliModule.forDoctor());
  } catch (e) {
    // Nothing else can be checked without config and a database handle: report why as a failed check.
    return { ok: false, checks: [bootFailure(e)] };
  }
  try {
    return await app.get(DoctorService).run();
  } catch (e) {
    return { ok: false, checks: [{ name: 'doctor', status: 'fail', message: messageOf(e) }] };
  } finally {
    await app.close().catch(() => undefined);
  }
}

function bootFailure(e: unknown): DoctorCheck {
  if (isNestclawError(e) && e.code === 'config_invalid') {
    return {
      name: 'config',
      status: 'fail',
      message: e.message,
      fix: 'correct the keys listed above (or remove them to use the defaults)',
    };
  }
  return {
    name: 'database',
    status: 'fail',
    message: `cannot connect: ${messageOf(e)}`,
    fix: 'start PostgreSQL or unset DATABASE_URL to use the embedded database',
  };
}

const MARK: Record<DoctorCheck['status'], string> = { ok: green('✔'), warn: yellow('!'), fail: red('✖') };

function print(source: string, report: DoctorReport): void {
  out(dim(`reporting on ${source}`));
  for (const c of report.checks) {
    out(`${MARK[c.status]} ${c.name}: ${c.message}`);
    if (c.fix && c.status !== 'ok') out(dim(`    fix: ${c.fix}`));
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const warned = report.checks.filter((c) => c.status === 'warn').length;
  out();
  out(
    failed
      ? red(`${failed} check(s) failed${warned ? `, ${warned} warning(s)` : ''}`)
      : green(`all checks passed${warned ? ` (${warned} warning(s))` : ''}`),
  );
}
