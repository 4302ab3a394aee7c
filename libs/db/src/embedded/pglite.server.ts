import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';
import type { RunningServer } from './embedded-server';

/**
 * Shared buffers for PGlite: its default (128 MB) is touched WASM memory the gateway process keeps;
 * 16 MB measured ~110 MB less RSS for the same work (docs/adr/0006-embedded-postgres.md).
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB'];

/**
 * The fallback embedded database: PGlite (PostgreSQL compiled to WASM) in this process, served on a
 * loopback port by pglite-socket. Used where the native binaries cannot run (no package for this
 * platform, or root without user namespaces) and for data directories PGlite created before.
 */
export async function startPglite(dataDir: string, log: (line: string) => void): Promise<RunningServer> {
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  log(
    fresh
      ? `creating the embedded database (PGlite) in ${dataDir} (first start only, a few seconds)`
      : `opening the embedded database (PGlite) in ${dataDir}`,
  );
  // initdb leaves ~500 MB of WASM memory behind that is never returned; doing it in a short-lived
  // child keeps the gateway's own footprint at what a reopen costs.
  if (fresh) await initInChildProcess(dataDir);
  // Loaded lazily: the WASM build is only needed on machines that use it.
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    engine: 'pglite',
    port,
    password: 'postgres',
    stop: async () => {
      await server.stop();
      await db.close();
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
