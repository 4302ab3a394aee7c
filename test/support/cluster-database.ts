import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@nestclaw/db';
import { createTestDatabase, TestDatabase } from './test-database';

/**
 * One database for several gateway processes (issue 24's replicas): a scratch database on the test
 * server when one answers, else an embedded PostgreSQL server (real binaries) started here and shared
 * over TCP. The embedded database a gateway opens by itself belongs to that one process, so replicas
 * always get a URL; and the cluster specs run on both of CI's database passes and on a machine
 * without a PostgreSQL server.
 */
export async function clusterDatabase(): Promise<TestDatabase & { url: string }> {
  const db = await createTestDatabase();
  if (db.url) return { url: db.url, drop: db.drop };
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-cluster-pg-'));
  // Server-sized: three or more replicas' pools (10 connections each, plus a listener) do not fit the
  // 20 connections a single gateway's embedded server allows ("sorry, too many clients already").
  const server = await startEmbeddedPostgres(home, () => undefined, 'native', { maxConnections: 100 });
  return {
    url: server.url,
    drop: async () => {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
