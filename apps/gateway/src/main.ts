import './tracing';
import { Logger } from '@nestjs/common';
import { parseArgs } from 'node:util';
import { isNestclawError } from '@nestclaw/common';
import { startGateway } from './bootstrap';

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((a) => a !== 'start'),
    options: { config: { type: 'string', short: 'c' }, port: { type: 'string', short: 'p' }, host: { type: 'string' } },
    strict: true,
  });
  const env = { ...process.env, ...(values.host ? { HOST: values.host } : {}) };
  const started = performance.now();
  const gw = await startGateway({ configPath: values.config, env, port: values.port ? Number(values.port) : undefined });
  new Logger('Gateway').log(`nestclaw ready on ${gw.url} in ${Math.round(performance.now() - started)} ms`);
  // Machine-readable readiness line for scripts and tests.
  if (process.env.NESTCLAW_READY_LINE) process.stdout.write(`NESTCLAW_READY ${gw.url}\n`);
}

main().catch((e: unknown) => {
  const message = isNestclawError(e) ? e.message : ((e as Error)?.stack ?? String(e));
  process.stderr.write(`nestclaw could not start: ${message}\n`);
  process.exit(1);
});
