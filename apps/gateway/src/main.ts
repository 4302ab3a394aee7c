import './tracing';
import { Logger } from '@nestjs/common';
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { isNestclawError } from '@nestclaw/common';
import { RunningGateway, startGateway } from './bootstrap';
import { gatherStartupFacts, startupSummaryLines } from './startup-summary';

const logger = new Logger('Gateway');

/**
 * Ctrl-C and SIGTERM close the app (in-flight work, connections, the embedded database) and exit 0.
 * A terminal's Ctrl-C reaches this process twice under `npm start` (from the terminal and from npm):
 * later signals are ignored while it stops.
 */
function stopOnSignals(gw: RunningGateway): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`stopping (${signal}) ...`);
    gw.close().then(
      () => {
        logger.log('stopped');
        process.exit(0);
      },
      (e: unknown) => {
        logger.error(`could not stop cleanly: ${(e as Error)?.message ?? String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((a) => a !== 'start'),
    options: { config: { type: 'string', short: 'c' }, port: { type: 'string', short: 'p' }, host: { type: 'string' } },
    strict: true,
  });
  const env = { ...process.env, ...(values.host ? { HOST: values.host } : {}) };
  const started = performance.now();
  const gw = await startGateway({ configPath: values.config, env, port: values.port ? Number(values.port) : undefined });
  stopOnSignals(gw);
  for (const line of startupSummaryLines(await gatherStartupFacts(gw.app, gw.url))) logger.log(line);
  logger.log(`nestclaw ready on ${gw.url} in ${Math.round(performance.now() - started)} ms`);
  // Machine-readable readiness line for scripts and tests.
  if (process.env.NESTCLAW_READY_LINE) {
    // What the launcher put in force (bin/runtime-settings.js), for scripts and tests to check.
    const runtime = {
      heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
      mallocArenaMax: process.env.MALLOC_ARENA_MAX ?? null,
    };
    process.stdout.write(`NESTCLAW_RUNTIME ${JSON.stringify(runtime)}\n`);
    process.stdout.write(`NESTCLAW_READY ${gw.url}\n`);
  }
}

main().catch((e: unknown) => {
  const message = isNestclawError(e) ? e.message : ((e as Error)?.stack ?? String(e));
  process.stderr.write(`nestclaw could not start: ${message}\n`);
  process.exit(1);
});
