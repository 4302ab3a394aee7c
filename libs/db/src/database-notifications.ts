import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { Client } from 'pg';
import { FailureThrottle } from '@nestclaw/common';
import { DatabaseService } from './database.service';

/**
 * Kinds of work a background loop waits for. Each is also a PostgreSQL channel (`nestclaw_<kind>`)
 * that a trigger notifies in the statement that writes the work (see the `wake_ups` migration).
 */
export type WakeUp = 'memory_index' | 'scheduled_jobs' | 'session_turns';
const WAKE_UPS: readonly WakeUp[] = ['memory_index', 'scheduled_jobs', 'session_turns'];
const CHANNEL_PREFIX = 'nestclaw_';

/** First wait before reconnecting the listener after it lost its server; doubles up to 30 s. */
const RECONNECT_BASE_MS = 1000;
const RECONNECT_MAX_MS = 30_000;

export type WakeHandler = () => void;

/**
 * Wakes background loops when there is work instead of letting each poll the database (issue 23).
 * `signal` wakes this process's loops at once; a write in another process reaches them through
 * one dedicated `LISTEN` connection (a trigger calls `pg_notify` in the writing statement, so the
 * writer pays no extra round trip, and a NOTIFY reaches every replica's listener). After the
 * listener loses its server it reconnects with backoff and wakes every loop once, since a
 * notification sent meanwhile was lost. Loops keep a slow safety poll of their own.
 *
 * The embedded default (real PostgreSQL binaries) listens like a server. PGlite, the fallback,
 * shares one session among all sockets, so a dedicated listening session does not exist there:
 * only in-process signals (enough, as one gateway owns that database) plus the safety polls.
 */
export class DatabaseNotifications implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Database');
  private readonly handlers = new Map<WakeUp, Set<WakeHandler>>();
  /** The listening connection, from its connect until it is lost. */
  private current: Client | undefined;
  private listening = false;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private lostBefore = false;
  private readonly failures = new FailureThrottle('listening for database wake-ups', this.logger, {
    baseDelayMs: RECONNECT_BASE_MS,
    maxDelayMs: RECONNECT_MAX_MS,
  });

  constructor(private readonly db: DatabaseService) {}

  /** Whether other processes' writes reach this one (false on PGlite: in-process signals only). */
  get listens(): boolean {
    return !this.db.sharedSession;
  }

  /**
   * Calls `handler` whenever `kind` work may be waiting; returns the unsubscribe. The handler runs in
   * the async context it subscribed in (the loop's own), not the waking writer's: a turn that queues
   * work must not find the loop's statements and log lines under its own session and turn ids.
   */
  on(kind: WakeUp, handler: WakeHandler): () => void {
    let set = this.handlers.get(kind);
    if (!set) this.handlers.set(kind, (set = new Set()));
    const bound = AsyncResource.bind(handler);
    set.add(bound);
    if (this.listens && !this.current && !this.reconnectTimer) void this.connect();
    return () => set.delete(bound);
  }

  /** Wakes this process's loops waiting for `kind` (the writer was here; its NOTIFY wakes the others). */
  signal(kind: WakeUp): void {
    for (const handler of this.handlers.get(kind) ?? []) {
      try {
        handler();
      } catch (e) {
        this.logger.warn(`a ${kind} wake-up failed: ${(e as Error).message}`);
      }
    }
  }

  /** Resolves once the listener is listening (tests and start-up checks); false when it cannot. */
  async ready(timeoutMs = 5000): Promise<boolean> {
    if (!this.listens) return false;
    const deadline = Date.now() + timeoutMs;
    while (!this.listening && Date.now() < deadline && !this.stopped) await new Promise((r) => setTimeout(r, 20));
    return this.listening;
  }

  /** Before the pool and an embedded server stop, so their going away is not logged as a lost listener. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.current;
    this.current = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.db.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 3000,
    });
    this.current = client;
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    client.on('notification', (n) => this.signal(n.channel.slice(CHANNEL_PREFIX.length) as WakeUp));
    try {
      await client.connect();
      await client.query(WAKE_UPS.map((k) => `LISTEN ${CHANNEL_PREFIX}${k}`).join('; '));
      if (this.current !== client) return;
      this.listening = true;
      this.failures.succeeded();
      // Whatever was notified while nobody listened is looked for once.
      if (this.lostBefore) for (const kind of WAKE_UPS) this.signal(kind);
    } catch (e) {
      this.lost(client, e as Error);
    }
  }

  /** Events of a connection already given up (its own `end` after an error) are ignored. */
  private lost(client: Client, e: Error): void {
    if (this.stopped || this.current !== client) return;
    this.current = undefined;
    this.listening = false;
    this.lostBefore = true;
    this.failures.failed(e);
    void client.end().catch(() => undefined);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, this.failures.retryInMs());
    this.reconnectTimer.unref();
  }
}
