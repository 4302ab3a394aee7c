import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';
import { seedEmbeddedHome } from './test-database';

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGKILL, like a crash or the OOM killer: no shutdown hooks run. */
  kill9(): Promise<void>;
  /**
   * SIGKILL to the whole process group at once (gateway, embedded PostgreSQL and its backends), as
   * `docker kill`, a cgroup OOM kill or a power cut does. Needs `{ ownProcessGroup: true }`.
   */
  killGroup9(): Promise<void>;
  stop(): Promise<void>;
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0);

/**
 * Runs the built gateway (`dist/apps/gateway/main.js`, made by `npm run build`) as its own process.
 * On the embedded database a fresh home gets a copy of the run's migrated data directory first, so
 * a test's start is a reopen, not initdb (embedded-database.e2e-spec.ts tests the first start). The
 * deadline (50 s) ends before jest's default 60 s hook timeout, so a late gateway is killed, not left behind.
 */
export async function spawnGateway(
  env: NodeJS.ProcessEnv,
  timeoutMs = 50_000,
  options: { ownProcessGroup?: boolean } = {},
): Promise<GatewayProcess> {
  const main = join(packageRoot(), 'dist', 'apps', 'gateway', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does it)`);
  if (env.NESTCLAW_HOME && !env.DATABASE_URL) seedEmbeddedHome(env.NESTCLAW_HOME);
  // setpriv (which execs, so the pid stays the gateway's) kills the gateway if this jest worker dies
  // first: a worker force-exited after a hook timeout used to leave gateways and their databases running.
  const [command, ...args] = [...(SETPRIV ? [SETPRIV, '--pdeathsig', 'KILL', '--'] : []), process.execPath, main, '--port', '0'];
  const child = spawn(command, args, {
    env: { ...env, NESTCLAW_READY_LINE: '1', NESTCLAW_LOG__LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own (the gateway leads it; the embedded server it starts joins it), so a test can kill all of it.
    detached: options.ownProcessGroup ?? false,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    // A gateway that missed the deadline is killed: left running, it would race the test's next start on the same home.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway not ready after ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = () => {
      const m = /NESTCLAW_READY (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before it was ready:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    killGroup9: async () => {
      if (!options.ownProcessGroup) throw new Error('killGroup9 needs spawnGateway(…, { ownProcessGroup: true })');
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
