import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';

export interface EmbeddedPostgres {
  url: string;
  /** True when this process started the server (and must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

interface EmbeddedInfo {
  pid: number;
  port: number;
}

const INFO_FILE = 'embedded-postgres.json';

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

function urlFor(port: number): string {
  return `postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
}

/**
 * PostgreSQL for machines without a server: PGlite (real Postgres compiled to WASM) with its data in
 * `$NESTCLAW_HOME/pgdata`, served on a loopback port by pglite-socket so the rest of nestclaw uses
 * the ordinary `pg`/Prisma path. A second nestclaw process (e.g. `nestclaw doctor` while the gateway
 * runs) finds the running server through `embedded-postgres.json` instead of opening the data twice.
 */
export async function startEmbeddedPostgres(home: string, log: (line: string) => void): Promise<EmbeddedPostgres> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const infoPath = join(home, INFO_FILE);
  if (existsSync(infoPath)) {
    try {
      const info = JSON.parse(readFileSync(infoPath, 'utf8')) as EmbeddedInfo;
      if (info.pid !== process.pid && alive(info.pid) && (await portAnswers(info.port))) {
        return { url: urlFor(info.port), owned: false, stop: async () => undefined };
      }
    } catch {
      // unreadable or stale: start our own below
    }
  }

  const dataDir = join(home, 'pgdata');
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  log(
    fresh
      ? `creating the embedded database in ${dataDir} (first start only, a few seconds)`
      : `opening the embedded database in ${dataDir}`,
  );
  // initdb leaves ~500 MB of WASM memory behind that is never returned; doing it in a short-lived
  // child keeps the gateway's own footprint at what a reopen costs.
  if (fresh) await initInChildProcess(dataDir);
  // Loaded lazily: the WASM build is only needed on machines without DATABASE_URL.
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  writeFileSync(infoPath, JSON.stringify({ pid: process.pid, port } satisfies EmbeddedInfo), { mode: 0o600 });
  return {
    url: urlFor(port),
    owned: true,
    stop: async () => {
      await server.stop();
      await db.close();
      rmSync(infoPath, { force: true });
    },
  };
}

/** Creates the data directory in a separate Node process that exits when done. */
function initInChildProcess(dataDir: string): Promise<void> {
  const script = `require('@electric-sql/pglite').PGlite.create(${JSON.stringify(dataDir)}).then((db) => db.close())`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { cwd: packageRoot(), timeout: 120_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`could not create the embedded database in ${dataDir}: ${stderr || error.message}`)) : resolve(),
    );
  });
}
