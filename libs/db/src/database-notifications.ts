import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { FailureThrottle } from '@nestclaw/common';
import { DatabaseService } from './database.service';
import { NotificationRepository } from './notification.repository';

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
 * Events between replicas (issue 24), each a PostgreSQL channel `nestclaw_<topic>` like the wake-ups,
 * but with a payload: ids, never content (NOTIFY's limit is 8000 bytes; a subscriber reads what it
 * needs from the database). `turn_cancel` asks whichever replica runs a turn to stop it;
 * `approval_decided` and `session_events` are sent by triggers on the tables the turn writes anyway;
 * `web_session_ended` (a sign-out, a revoked token) closes that session's WebSockets on every replica.
 */
export type EventTopic = 'turn_cancel' | 'approval_decided' | 'session_events' | 'web_session_ended';
const EVENT_TOPICS: readonly EventTopic[] = ['turn_cancel', 'approval_decided', 'session_events', 'web_session_ended'];
/** Far below NOTIFY's 8000 bytes: a payload this big is a bug (content instead of ids). */
const MAX_PAYLOAD_BYTES = 2000;

export type EventPayload = Record<string, string | number | boolean | null>;
export type EventHandler = (payload: EventPayload) => void;

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
  private readonly subscribers = new Map<EventTopic, Set<EventHandler>>();
  /** Marks this process's own events, delivered at once, so their NOTIFY coming back is skipped. */
  private readonly origin = randomBytes(6).toString('hex');
  private readonly repository: NotificationRepository;
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

  constructor(private readonly db: DatabaseService) {
    this.repository = new NotificationRepository(db);
  }

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

  /**
   * Calls `handler` with each `topic` event from this process (at once) and from every other replica
   * (through NOTIFY); returns the unsubscribe. Like `on`, the handler runs in its subscriber's context.
   * An event sent while the listener was reconnecting is lost: subscribers that must not miss one keep
   * a slow sweep of the database of their own (approvals do).
   */
  subscribe(topic: EventTopic, handler: EventHandler): () => void {
    let set = this.subscribers.get(topic);
    if (!set) this.subscribers.set(topic, (set = new Set()));
    const bound = AsyncResource.bind(handler);
    set.add(bound);
    if (this.listens && !this.current && !this.reconnectTimer) void this.connect();
    return () => set.delete(bound);
  }

  /**
   * Delivers `payload` to this process's `topic` subscribers at once and to the other replicas'
   * through one NOTIFY (a statement of its own; events that go with a write come from a trigger on
   * that write instead). On PGlite there are no other processes: local delivery only.
   */
  async publish(topic: EventTopic, payload: EventPayload): Promise<void> {
    const text = JSON.stringify({ ...payload, origin: this.origin });
    if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES)
      throw new Error(`a ${topic} event of ${Buffer.byteLength(text)} bytes: send ids, not content`);
    this.deliver(topic, payload);
    if (this.listens) await this.repository.notify(`${CHANNEL_PREFIX}${topic}`, text);
  }

  private deliver(topic: EventTopic, payload: EventPayload): void {
    for (const handler of this.subscribers.get(topic) ?? []) {
      try {
        handler(payload);
      } catch (e) {
        this.logger.warn(`a ${topic} event handler failed: ${(e as Error).message}`);
      }
    }
  }

  /** A notification from the listener: a wake-up, or an event (one this process sent is already delivered). */
  private received(channel: string, text: string | undefined): void {
    const name = channel.slice(CHANNEL_PREFIX.length);
    if (!(EVENT_TOPICS as readonly string[]).includes(name)) return this.signal(name as WakeUp);
    let payload: EventPayload & { origin?: string };
    try {
      payload = JSON.parse(text || '{}') as EventPayload & { origin?: string };
    } catch {
      return this.logger.warn(`an unreadable ${name} event was ignored`);
    }
    if (payload.origin === this.origin) return;
    delete payload.origin;
    this.deliver(name as EventTopic, payload);
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
    client.on('notification', (n) => this.received(n.channel, n.payload));
    try {
      await client.connect();
      await client.query([...WAKE_UPS, ...EVENT_TOPICS].map((k) => `LISTEN ${CHANNEL_PREFIX}${k}`).join('; '));
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
