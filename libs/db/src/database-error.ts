import { NestclawError } from '@nestclaw/common';
import { QUERY_TIMEOUT_MESSAGE } from './timeout-aware.client';

/** Node socket errors and PostgreSQL SQLSTATEs that mean "the database cannot be reached (now)". */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
  '08004',
  // query_canceled: statement_timeout fired on the server.
  '57014',
  // Prisma: can't reach server, timed out, server closed the connection, pool timeout.
  'P1001',
  'P1002',
  'P1017',
  'P2024',
]);
/** too_many_connections: reachable but full, e.g. replicas × database.pool_size above max_connections. */
const TOO_MANY_CONNECTIONS = '53300';
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|Connection closed|The database is not reachable/i;

/** An unreachable-database failure anywhere in the `cause` chain (Prisma's adapter wraps pg's errors). */
function unreachable(e: unknown): NestclawError | undefined {
  for (let err = e as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; err && depth < 5; depth++) {
    if (typeof err !== 'object') break;
    const code = typeof err.code === 'string' ? err.code : undefined;
    const message = typeof err.message === 'string' ? err.message : '';
    if (code === TOO_MANY_CONNECTIONS)
      return new NestclawError(
        'database_unavailable',
        'The database has no free connection (max_connections reached): lower database.pool_size or the replica count, or raise PostgreSQL max_connections',
      );
    if ((code && CONNECTION_ERRORS.has(code)) || CONNECTION_MESSAGES.test(message)) {
      const why = code === '57014' || message.includes(QUERY_TIMEOUT_MESSAGE) ? 'did not answer in time' : 'is not reachable';
      return new NestclawError(
        'database_unavailable',
        `The database ${why}; check that PostgreSQL is running and reachable (nestclaw doctor)`,
      );
    }
    err = err.cause as typeof err;
  }
  return undefined;
}

/** What Prisma's pg adapter attaches to a failed query (the parts read here). */
interface PrismaErrorMeta {
  target?: unknown;
  driverAdapterError?: {
    cause?: { originalCode?: string; constraint?: { index?: string } };
  };
}

/**
 * The one place database failures become coded errors (docs/adr/0008-data-path.md): unreachable →
 * `database_unavailable` (503), a unique or foreign-key violation → `conflict` (409), text
 * PostgreSQL cannot store → `invalid_request` (400). Anything else passes through unchanged.
 */
export function mapDatabaseError(e: unknown): unknown {
  if (e instanceof NestclawError) return e;
  const err = e as { code?: string; message?: string; constraint?: string; meta?: PrismaErrorMeta };
  // Prisma's driver adapter keeps PostgreSQL's own code and constraint: read them, so a query made
  // through Prisma fails exactly as the same query made through pg (same code, same message).
  const cause = err?.meta?.driverAdapterError?.cause;
  const down = unreachable(e) ?? (cause?.originalCode ? unreachable({ code: cause.originalCode }) : undefined);
  if (down) return down;
  const code = cause?.originalCode ?? err?.code;
  const constraint = err?.constraint ?? cause?.constraint?.index;
  switch (code) {
    case '23505':
    case 'P2002':
      return new NestclawError('conflict', `Already exists (${constraint ?? String(err.meta?.target ?? 'unique key')})`, { constraint });
    case '23503':
    case 'P2003':
      return new NestclawError('conflict', `Refers to something that does not exist (${constraint ?? 'foreign key'})`, { constraint });
    case '22021':
    case '22P05':
      return new NestclawError('invalid_request', 'Text the database cannot store (a NUL byte or invalid UTF-8)');
    default:
      return e;
  }
}
