import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { join } from 'node:path';
import { Pool, PoolClient, PoolConfig, QueryResult, QueryResultRow } from 'pg';
import { NestclawError, packageRoot } from '@nestclaw/common';
import type { ConfigService } from '@nestclaw/config';
import { startEmbeddedPostgres, EmbeddedPostgres } from './embedded/embedded-database';
import { mapDatabaseError } from './database-error';
import { SqlValue, withLiterals } from './sql-literal';
import { listMigrations, MigrationReport, pendingMigrations, runMigrations } from './migrations/migration.runner';
import { PrismaClient } from './generated/prisma/client';
import { handleConnectionLoss } from './connection-loss';
import { GuardedPool } from './guarded.pool';
import { Reachability } from './reachability';
import { TimeoutAwareClient, TimeoutAwareClientConfig } from './timeout-aware.client';

/**
 * `auto`: durable commits when the database dies with the gateway (embedded: a kill of the process
 * group, an OOM kill or a power cut takes both), asynchronous when it is a server that outlives the
 * gateway. A connection setting, so it costs no statement (docs/adr/0001, addendum 5).
 */
export function synchronousCommit(setting: 'auto' | 'on' | 'off', embedded: EmbeddedPostgres | undefined): 'on' | 'off' {
  if (setting !== 'auto') return setting;
  return embedded ? 'on' : 'off';
}

export function migrationsDir(): string {
  return join(packageRoot(), 'prisma', 'migrations');
}

export interface DatabaseOptions {
  /** Apply pending migrations while connecting (the gateway does; `doctor` does not). */
  migrate: boolean;
  /** Register as a replica (`replicas` row, beaten every 2 s): the gateway does, the CLI does not. */
  replica?: boolean;
}

/**
 * One pg pool shared by raw SQL (hot paths) and Prisma (everything else), so the embedded server's
 * connection cap is never exceeded by two pools.
 */
export class DatabaseService implements OnApplicationShutdown {
  private static readonly logger = new Logger('Database');
  /** Set when the app shuts down: connection errors from then on are the shutdown's own. */
  private stopping = false;
  /** The migrations this version ships, read once (see pendingMigrations). */
  private shippedMigrations: string[] | undefined;

  private constructor(
    readonly pool: Pool,
    readonly prisma: PrismaClient,
    readonly url: string,
    readonly embedded: EmbeddedPostgres | undefined,
    readonly migrations: MigrationReport | undefined,
    private readonly reachability: Reachability,
    /** PGlite: every socket shares one session (no prepared-statement names, no separate LISTEN session). */
    readonly sharedSession: boolean,
  ) {
    // An idle client losing its server must not crash the process; queries report it instead.
    pool.on('error', (e) => this.idleConnectionLost(e));
  }

  /**
   * While stopping this is expected, not news: pg's pool.end() returns once it has asked its idle
   * clients to end, not once they have, so the embedded server's fast shutdown right after can
   * still end a backend under one ("terminating connection due to administrator command").
   */
  private idleConnectionLost(e: Error): void {
    if (this.stopping) DatabaseService.logger.debug(`database connection ended while stopping: ${e.message}`);
    else DatabaseService.logger.warn(`idle database connection lost: ${e.message}`);
  }

  static async connect(config: ConfigService, options: DatabaseOptions): Promise<DatabaseService> {
    const log = (line: string) => DatabaseService.logger.log(line);
    const { database } = config.get();
    let embedded: EmbeddedPostgres | undefined;
    let url = database.url;
    if (!url) {
      embedded = await startEmbeddedPostgres(config.home, log, database.embedded_engine);
      url = embedded.url;
    }
    let report: MigrationReport | undefined;
    // PGlite behind a socket (embedded, or a DATABASE_URL pointing at one): one shared session.
    let sharedSession = embedded?.engine === 'pglite';
    try {
      if (options.migrate) {
        // Its own short-lived connection without the request timeouts: a migration may take minutes.
        const migrator = handleConnectionLoss(new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 }), (e) =>
          DatabaseService.logger.warn(`migration connection lost: ${e.message}`),
        );
        try {
          // A first start applies every migration: its first line says that began and "applied N" that it
          // ended; the files in between are debug detail (`nestclaw migrate` prints them all).
          let first = true;
          const progress = (line: string) => {
            if (first || line.startsWith('warning')) log(line);
            else DatabaseService.logger.debug(line);
            first = false;
          };
          report = await runMigrations(migrator, migrationsDir(), progress);
          const { rows } = await migrator.query<{ version: string }>('SELECT version()');
          sharedSession ||= /PGlite/i.test(rows[0]?.version ?? '');
        } finally {
          await migrator.end().catch(() => undefined);
        }
        if (report.applied.length) log(`applied ${report.applied.length} migration(s)`);
      }
    } catch (e) {
      await embedded?.stop().catch(() => undefined);
      const mapped = mapDatabaseError(e);
      if (mapped instanceof NestclawError && mapped.code === 'database_unavailable') {
        throw new NestclawError(
          'database_unavailable',
          `Cannot connect to the database at ${redactUrl(url)}: ${(e as Error).message}. Start PostgreSQL or unset DATABASE_URL to use the embedded one.`,
        );
      }
      throw e;
    }
    const bound = database.query_timeout;
    const reachability = new Reachability(url, bound);
    const poolConfig: PoolConfig & TimeoutAwareClientConfig = {
      connectionString: url,
      // Each embedded backend is a ~17 MB process: three serve one user's turns without waiting
      // (docs/adr/0006-embedded-postgres.md). PGlite has one session whatever the connection, and
      // pglite-socket queues protocol messages, not queries: two connections' parameterised queries
      // interleave there and break each other. One connection: pg sends its queries one at a time.
      max: sharedSession ? 1 : embedded ? Math.min(database.pool_size, 3) : database.pool_size,
      // Every wait on the database is bounded, so a partition fails requests fast instead of hanging them.
      connectionTimeoutMillis: Math.min(3000, bound),
      query_timeout: bound,
      // Notice a peer that vanished without a FIN (partition, dead host) on idle connections too.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      idleTimeoutMillis: 30_000,
      Client: TimeoutAwareClient,
      // Real PostgreSQL only: PGlite's socket server does not take startup options.
      ...(sharedSession
        ? {}
        : { options: `-c synchronous_commit=${synchronousCommit(database.synchronous_commit, embedded)} -c statement_timeout=${bound}` }),
      reachability,
    };
    const pool = new GuardedPool(poolConfig, reachability);
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    return new DatabaseService(pool, prisma, url, embedded, report, reachability, sharedSession);
  }

  /**
   * A name for a prepared statement, so PostgreSQL parses and plans it once per connection; none on
   * PGlite (embedded or behind DATABASE_URL), where every socket shares one session and names would collide.
   */
  statementName(name: string): string | undefined {
    return this.sharedSession ? undefined : name;
  }

  /** Where the data is, for people: "embedded PostgreSQL in …" or the URL without its password. */
  describe(): string {
    if (!this.embedded) return redactUrl(this.url);
    return `embedded PostgreSQL${this.embedded.engine === 'pglite' ? ' (PGlite)' : ''} in ${this.embedded.dataDir}`;
  }

  /**
   * One SQL statement, its failures mapped once (mapDatabaseError). Repositories use this (or Prisma);
   * `client` is the transaction's client when inside `transaction`.
   */
  async query<R extends QueryResultRow = QueryResultRow>(
    text: string,
    values?: unknown[],
    options: { client?: PoolClient; name?: string } = {},
  ): Promise<QueryResult<R>> {
    const name = options.name ? this.statementName(options.name) : undefined;
    try {
      return await (options.client ?? this.pool).query<R>({ text, values, ...(name ? { name } : {}) });
    } catch (e) {
      throw mapDatabaseError(e);
    }
  }

  /** Runs `fn` in one transaction on one client; network calls never belong inside. */
  async transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((e: unknown) => {
      throw mapDatabaseError(e);
    });
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      const mapped = mapDatabaseError(e);
      // A connection that timed out or failed is discarded, not handed to the next caller.
      if (mapped instanceof NestclawError && mapped.code === 'database_unavailable') broken = e as Error;
      else await client.query('ROLLBACK').catch((r: Error) => (broken = r));
      throw mapped;
    } finally {
      client.release(broken);
    }
  }

  /**
   * A transaction left open for the caller to end, for a write that must commit together with
   * something outside the database (a model request and its ledger row). `commit()` and
   * `rollback()` write their statement to the connection before they return: pg sends at once to
   * an idle client, so await every statement on `client` before ending.
   */
  async begin(): Promise<HeldTransaction>;
  async begin<R extends QueryResultRow>(first: { text: string; values: SqlValue[] }): Promise<HeldTransaction & { rows: R[] }>;
  /**
   * `first`: a statement sent with `BEGIN` in one simple query, so opening the transaction and its
   * first write cost one round trip instead of two. A simple query takes no parameters, so its
   * values are written in (withLiterals); observers and traces see the parameterised text.
   */
  async begin<R extends QueryResultRow>(first?: { text: string; values: SqlValue[] }): Promise<HeldTransaction & { rows: R[] }> {
    const client = await this.pool.connect().catch((e: unknown) => {
      throw mapDatabaseError(e);
    });
    let rows: R[] = [];
    try {
      if (first === undefined) await client.query('BEGIN');
      else {
        // A multi-statement simple query answers with one result per statement: BEGIN's, then ours.
        const query = { text: `BEGIN; ${withLiterals(first.text, first.values)}`, observedText: `BEGIN; ${first.text}` };
        const results = (await client.query(query)) as unknown as QueryResult<R>[];
        rows = results[results.length - 1].rows;
      }
    } catch (e) {
      // Inside a failed transaction block: the connection goes back to the pool only after ROLLBACK.
      if (first === undefined) client.release(e as Error);
      else
        await client.query('ROLLBACK').then(
          () => client.release(),
          (r: Error) => client.release(r),
        );
      throw mapDatabaseError(e);
    }
    let ended: Promise<void> | undefined;
    const end = (statement: 'COMMIT' | 'ROLLBACK') =>
      (ended ??= client.query(statement).then(
        () => client.release(),
        (e: Error) => {
          // A failed COMMIT or ROLLBACK leaves the connection in doubt: the pool drops it.
          client.release(e);
          throw mapDatabaseError(e);
        },
      ));
    return { client, rows, commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
  }

  async ping(timeoutMs = 1500): Promise<{ ok: boolean; latencyMs: number; error?: string }> {
    const start = performance.now();
    // While requests fail fast, a health check asks the database itself (and may end the outage).
    if (this.reachability.isDown && !(await this.reachability.probe())) {
      return { ok: false, latencyMs: performance.now() - start, error: 'the database is not reachable' };
    }
    try {
      await Promise.race([
        this.pool.query('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref()),
      ]);
      return { ok: true, latencyMs: performance.now() - start };
    } catch (e) {
      return { ok: false, latencyMs: performance.now() - start, error: (e as Error).message };
    }
  }

  /**
   * Migrations this version ships that the database lacks. The shipped names are read from disk once
   * per process (they do not change while it runs), so a readiness probe, polled every few hundred ms
   * by a load balancer, costs two small queries instead of reading and hashing every file.
   */
  async pendingMigrations(): Promise<string[]> {
    this.shippedMigrations ??= listMigrations(migrationsDir()).map((f) => f.name);
    return pendingMigrations(this.pool, migrationsDir(), this.shippedMigrations);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.reachability.stop();
    await this.prisma.$disconnect().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    if (this.embedded?.owned) await this.embedded.stop().catch(() => undefined);
  }
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}

/** See DatabaseService.begin. Ending it twice returns the first ending. */
export interface HeldTransaction {
  readonly client: PoolClient;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}
