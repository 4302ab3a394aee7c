import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';
import { seedEmbeddedHome } from './test-database';

export interface GatewayProcess {
  url: string;
  /** A request with the owner token of its environment (NESTCLAW_TOKEN); `json` makes it a JSON POST. */
  api(path: string, init?: { json?: unknown; method?: string; signal?: AbortSignal }): Promise<Response>;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGKILL, like a crash or the OOM killer: no shutdown hooks run. */
  kill9(): Promise<void>;
  /** SIGINT (to its process group with ownProcessGroup, like Ctrl-C in a terminal); resolves with the exit code. */
  interrupt(): Promise<number | null>;
  /**
   * SIGKILL to everything the gateway runs at once (its process group, and the embedded PostgreSQL's own
   * group with its backends), as `docker kill`, a cgroup OOM kill or a power cut does: the database gets
   * no signal to shut down cleanly. Needs `{ ownProcessGroup: true }`.
   */
  killGroup9(): Promise<void>;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Default 0: a free port. */
  port?: number;
  /** `log.level`; default warn, so a test's output is what went wrong. */
  logLevel?: 'error' | 'warn' | 'log' | 'debug';
  /**
   * Its own process group, as a terminal gives the command it runs: interrupt() then signals the
   * whole group, the embedded database included, as Ctrl-C does. Off by default: without setpriv,
   * a gateway in the test runner's group still dies with it.
   */
  ownProcessGroup?: boolean;
  /**
   * Start it as a user does, through the `nestclaw start` launcher (bin/nestclaw.js), which may run
   * node once more with the runtime settings. Stop it with stop(): kill9() would reach only the launcher.
   */
  viaLauncher?: boolean;
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0);

/**
 * Runs the built gateway (`dist/apps/gateway/main.js`, made by `npm run build`) as its own process.
 * On the embedded database a fresh home gets a copy of the run's migrated data directory first, so
 * a test's start is a reopen, not initdb (embedded-database.e2e-spec.ts tests the first start). The
 * deadline (50 s) ends before jest's default 60 s hook timeout, so a late gateway is killed, not left behind.
 */
export async function spawnGateway(env: NodeJS.ProcessEnv, timeoutMs = 50_000, options: SpawnOptions = {}): Promise<GatewayProcess> {
  const main = join(packageRoot(), 'dist', 'apps', 'gateway', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does it)`);
  if (env.NESTCLAW_HOME && !env.DATABASE_URL) seedEmbeddedHome(env.NESTCLAW_HOME);
  // setpriv (which execs, so the pid stays the gateway's) kills the gateway if this jest worker dies
  // first: a worker force-exited after a hook timeout used to leave gateways and their databases running.
  const port = String(options.port ?? 0);
  const entry = options.viaLauncher ? [join(packageRoot(), 'bin', 'nestclaw.js'), 'start'] : [main];
  const [command, ...args] = [...(SETPRIV ? [SETPRIV, '--pdeathsig', 'KILL', '--'] : []), process.execPath, ...entry, '--port', port];
  const child = spawn(command, args, {
    env: { ...env, NESTCLAW_READY_LINE: '1', NESTCLAW_LOG__LEVEL: options.logLevel ?? 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // After the exit and the end of its output: what it printed while stopping is in out.
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
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
    // 'close', not 'exit': the reason it printed has been read by then.
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before it was ready:\n${out}`));
    });
  });
  return {
    url,
    api: (path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
        headers: {
          authorization: `Bearer ${env.NESTCLAW_TOKEN}`,
          ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
        signal: init.signal,
      }),
    child,
    output: () => out,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    interrupt: () => {
      process.kill(options.ownProcessGroup ? -child.pid! : child.pid!, 'SIGINT');
      return closed;
    },
    killGroup9: async () => {
      if (!options.ownProcessGroup) throw new Error('killGroup9 needs spawnGateway(…, { ownProcessGroup: true })');
      // The embedded server leads a group of its own (a terminal's Ctrl-C must not reach it): kill it first,
      // so the gateway's death cannot give it the signal that makes it shut down cleanly.
      const postmaster = env.NESTCLAW_HOME ? join(env.NESTCLAW_HOME, 'postgres', 'postmaster.pid') : '';
      const pid = postmaster && existsSync(postmaster) ? Number(readFileSync(postmaster, 'utf8').split('\n')[0]) : 0;
      if (pid > 0) {
        for (const target of [-pid, pid]) {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // not a group leader, or already gone
          }
        }
      }
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
