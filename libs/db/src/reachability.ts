import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { NestclawError } from '@nestclaw/common';

/** Failures that mean "no answer from the database host", as opposed to an answer that is an error. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
const UNREACHABLE_MESSAGES = /Query read timeout|timeout exceeded when trying to connect|Connection terminated|Connection closed/i;

export function isUnreachable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | undefined;
  return (typeof err?.code === 'string' && UNREACHABLE_CODES.has(err.code)) || UNREACHABLE_MESSAGES.test(String(err?.message ?? ''));
}

const PROBE_INTERVAL_MS = 250;

/**
 * Fail fast while the database is known to be unreachable. The first operation that gets no answer
 * within `database.query_timeout` (or cannot connect) marks the database down; from then on new
 * operations fail at once with 503 instead of each waiting out its own timeout, and a probe on a
 * fresh connection every 250 ms brings the pool back the moment the database answers again.
 */
export class Reachability {
  private static readonly logger = new Logger('Database');
  private downSince: number | undefined;
  private probing = false;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  /** The error to fail an operation with while the database is down, else undefined. */
  gate(): NestclawError | undefined {
    if (this.downSince === undefined) return undefined;
    return new NestclawError(
      'database_unavailable',
      'The database is not reachable; check that PostgreSQL is running and reachable (nestclaw doctor)',
    );
  }

  /** Reports the outcome of an operation: an unreachable-class failure marks the database down. */
  failed(e: unknown): void {
    if (this.stopped || this.downSince !== undefined || !isUnreachable(e)) return;
    this.downSince = Date.now();
    Reachability.logger.warn(`database unreachable (${(e as Error).message}); failing requests fast until it answers again`);
    void this.probeLoop();
  }

  /** One probe now; true (and the database marked up) when it answers. */
  async probe(): Promise<boolean> {
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: this.timeoutMs, query_timeout: this.timeoutMs });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      if (this.downSince !== undefined) {
        Reachability.logger.log(`database reachable again after ${Date.now() - this.downSince} ms`);
        this.downSince = undefined;
      }
      return true;
    } catch {
      return false;
    } finally {
      void client.end().catch(() => undefined);
    }
  }

  stop(): void {
    this.stopped = true;
    this.downSince = undefined;
  }

  private async probeLoop(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      while (this.downSince !== undefined && !this.stopped) {
        await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS).unref());
        await this.probe();
      }
    } finally {
      this.probing = false;
    }
  }
}
