import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { FailureThrottle } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { DatabaseNotifications } from '@nestclaw/db';
import { ActiveIndex } from './active-index';
import { ReindexService } from './reindex.service';
import { IndexEntryApplier } from './index-entry.applier';
import type { QueueEntry } from '../queue/index-queue.repository';
import { IndexFeedCursor } from './index-feed.cursor';
import { IndexQueueSignal } from '../queue/index-queue.signal';

/** How long shutdown waits for index work in flight. */
const SHUTDOWN_WAIT_MS = 10_000;
/**
 * The slow look at the feed for what no wake-up announced: a notification lost while the listener
 * was reconnecting, or an entry that was not yet settled (an older transaction still ran) when woken.
 */
export const INDEX_SAFETY_POLL_MS = 30_000;
/** How often the index may be compacted while nothing is written (LanceDB only, no SQL). */
const OPTIMIZE_CHECK_MS = 10_000;

/**
 * Applies the `index_queue` change feed to this replica's derived index, reading with a cursor of
 * its own (IndexFeedCursor), so every replica's index gets every change (issue 24). Each entry means
 * "make the index agree with Postgres about this memory", so applying one twice is harmless and a
 * crash anywhere only delays it. Failures retry with exponential backoff and are parked after
 * `memory.worker.max_attempts` (listed by /doctor). It does not poll (issue 23): a local write kicks
 * it, another process's write wakes it through DatabaseNotifications (a trigger on `index_queue`),
 * a failed entry arms a timer for its retry, and a slow safety poll catches the rest.
 */
@Injectable()
export class IndexWorker implements IndexQueueSignal, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('MemoryWorker');
  private draining: Promise<number> | undefined;
  private again = false;
  private stopped = false;
  private lastIdleOptimize = 0;
  private lastPassAt = 0;
  private kickTimer: NodeJS.Timeout | undefined;
  /**
   * The worker's own async context, made with the worker (outside any request). A turn that stores a
   * memory kicks the worker: the pass must not run, log and count its statements as that turn's.
   */
  private readonly scope = new AsyncResource('memory-index-worker');
  private safetyTimer: NodeJS.Timeout | undefined;
  private optimizeTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private optimizing: Promise<void> | undefined;
  lastError: { at: string; message: string } | undefined;
  /** During a database outage: one line, a summary a minute, one on recovery; polls spaced out meanwhile. */
  private readonly failures: FailureThrottle;

  constructor(
    private readonly config: ConfigService,
    private readonly indexes: ActiveIndex,
    private readonly reindex: ReindexService,
    private readonly applier: IndexEntryApplier,
    private readonly notifications: DatabaseNotifications,
    private readonly cursor: IndexFeedCursor,
  ) {
    this.failures = new FailureThrottle('memory index worker', this.logger, { baseDelayMs: config.get().memory.worker.interval });
  }

  onApplicationBootstrap(): void {
    const { worker, enabled } = this.config.get().memory;
    if (!enabled || !worker.enabled) return;
    this.unsubscribe = this.notifications.on('memory_index', () => this.kick());
    this.safetyTimer = setInterval(() => this.tick(), INDEX_SAFETY_POLL_MS);
    this.optimizeTimer = setInterval(() => void this.idleOptimize(), OPTIMIZE_CHECK_MS);
    // Entries left by an earlier run (or queued while this process was down).
    this.kick();
  }

  /**
   * Before the pool and the index close: stop taking work and let a pass, an optimize or a rebuild
   * still touching the index finish (bounded), so nothing uses a closed table or pool.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.safetyTimer);
    clearInterval(this.optimizeTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.kickTimer);
    const settled = Promise.allSettled([this.draining, this.optimizing, this.reindex.wait()]);
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref())]);
  }

  /**
   * Wakes the worker after a local write instead of at the next poll: at once when it has been
   * quiet, else when one `worker.interval` has passed since the last pass. Under load (a transcript
   * memory per turn) writes then reach LanceDB in batches, each of which is a new table version.
   */
  kick(): void {
    if (this.kickTimer || this.stopped) return;
    const { enabled, worker } = this.config.get().memory;
    if (!enabled || !worker.enabled) return;
    // While the database fails, the throttle spaces the attempts out (and logs once).
    const wait = Math.max(0, this.lastPassAt + worker.interval - Date.now(), this.failures.retryInMs());
    this.kickTimer = this.scope.runInAsyncScope(() =>
      setTimeout(() => {
        this.kickTimer = undefined;
        this.tick();
      }, wait),
    );
  }

  private tick(): void {
    if (this.stopped || !this.config.get().memory.worker.enabled || !this.failures.due()) return;
    this.reindex.ensureCurrent();
    void this.drain().then(
      () => this.failures.succeeded(),
      (e: unknown) => {
        this.lastError = { at: new Date().toISOString(), message: (e as Error).message };
        this.failures.failed(e);
        this.kick();
      },
    );
  }

  /** Drains what is due; concurrent calls share one pass (and trigger one more if work arrived meanwhile). */
  drain(): Promise<number> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = this.pass().finally(() => {
      this.draining = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.kick();
      }
    });
    return this.draining;
  }

  private async pass(): Promise<number> {
    this.kickAfterReindex();
    if (!this.indexes.current.ready || this.reindex.isRunning) return 0;
    // Not before start-up opened the index directory (MemoryLifecycle), which holds the cursor's key.
    if (!this.cursor.opened) {
      this.retryAfter(1000);
      return 0;
    }
    if (!this.cursor.loaded && (await this.cursor.load()).behind) {
      this.reindex.start('the change feed was pruned past this index while its replica was away');
      this.kickAfterReindex();
      return 0;
    }
    this.lastPassAt = Date.now();
    const { batch, max_attempts, backoff_base, backoff_max } = this.config.get().memory.worker;
    const backoff = { maxAttempts: max_attempts, baseMs: backoff_base, maxMs: backoff_max };
    let total = 0;
    const retries = this.cursor.due();
    if (retries.length) total += await this.apply(retries, backoff);
    while (!this.stopped && !this.reindex.isRunning) {
      const entries = await this.cursor.read(batch);
      if (entries.length === 0) break;
      total += await this.apply(entries, backoff);
      if (entries.length < batch) break;
    }
    if (!this.reindex.isRunning) await this.cursor.save();
    const retryAt = this.cursor.nextRetryAt();
    if (retryAt !== undefined) this.retryAfter(Math.max(0, retryAt - Date.now()));
    this.kickAfterReindex();
    return total;
  }

  /** Applies entries to the index; failures are retried later by this replica, and parked after the last attempt. */
  private async apply(entries: QueueEntry[], backoff: { maxAttempts: number; baseMs: number; maxMs: number }): Promise<number> {
    const failures = await this.applier.applyIsolated(entries);
    const failed = new Set(failures.flatMap((f) => f.ids));
    this.cursor.succeeded(entries.filter((e) => !failed.has(e.id)).map((e) => e.id));
    for (const f of failures) {
      const parked = await this.cursor.failed(
        entries.filter((e) => f.ids.includes(e.id)),
        f.error,
        backoff,
      );
      this.lastError = { at: new Date().toISOString(), message: f.error };
      this.logger.warn(
        `memory index: ${f.ids.length} entr${f.ids.length === 1 ? 'y' : 'ies'} failed (${f.error})${parked ? `; ${parked} parked` : ''}`,
      );
    }
    return entries.length;
  }

  /** Entries queued during a rebuild wait for it: look again the moment it ends, not at the safety poll. */
  private kickAfterReindex(): void {
    if (this.reindex.isRunning) void this.reindex.wait().then(() => this.kick());
  }

  /** A failed entry's retry is due then: look again without waiting for the safety poll. */
  private retryAfter(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.kick(), ms);
  }

  private async idleOptimize(): Promise<void> {
    if (this.draining || this.reindex.isRunning || Date.now() - this.lastIdleOptimize < 30_000) return;
    this.lastIdleOptimize = Date.now();
    this.optimizing = this.indexes.current
      .optimize()
      .catch((e: unknown) => this.logger.warn(`memory index optimize: ${(e as Error).message}`));
    await this.optimizing;
    this.optimizing = undefined;
  }
}
