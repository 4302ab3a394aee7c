import { NestclawError } from '@nestclaw/common';
import { readGatewayInfo } from '@nestclaw/config';
import type { DatabaseService } from '@nestclaw/db';

/**
 * The embedded database serves one gateway process: its server lives and dies with the gateway that
 * started it, and nothing else about it is built for sharing (docs/scaling.md). A second gateway on
 * the same $NESTCLAW_HOME without DATABASE_URL would find the first one's server and quietly run as a
 * second replica on it; this refuses instead, and says how to run several gateways. Checked after the
 * database connects and before anything starts (no worker, channel or listener runs yet). A second
 * gateway in the same process (tests) shares the server it started, which is not this case.
 */
export function assertEmbeddedDatabaseOwned(db: DatabaseService, home: string): void {
  if (!db.embedded || db.embedded.owned) return;
  const other = readGatewayInfo(home);
  throw new NestclawError(
    'conflict',
    `The embedded database is single-process: another gateway${other ? ` (pid ${other.pid}, ${other.url})` : ''} already runs on ${home}. ` +
      'Stop it, or to run several gateways point each at one PostgreSQL server with DATABASE_URL (docs/scaling.md).',
  );
}
