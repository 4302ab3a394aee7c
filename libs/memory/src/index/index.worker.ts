import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { FailureThrottle } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { DatabaseNotifications } from '@nestclaw/db';
import { LanceIndex } from './lance.index';
import { ReindexService } from './reindex.service';
import { IndexEntryApplier } from './index-entry.applier';
import { IndexQueueRepository } from '../queue/index-queue.repository';
import { IndexQueueSignal } from '../queue/index-queue.signal';

/** How long shutdown waits for index work in flight. */
const SHUTDOWN_WAIT_MS = 10_000;
/**
 * The slow look at the queue for what no wake-up announced: another process's entries whose lease
 * ran out after it crashed, or a notification lost while the listener was reconnecting.
 */
export const INDEX_SAFETY_POLL_MS = 30_000;
/** How often the index may be compacted while nothing is written (LanceDB only, no SQL). */
const OPTIMIZE_CHECK_MS = 10_000;

/**
 * Drains `index_queue` into the derived index. Each entry means "make the index agree with
 * Postgres about this memory", so applying one twice is harmless and a crash anywhere only delays
 * it. Failures retry with exponential backoff and are parked after `memory.worker.max_attempts`
 * (listed by /doctor). It does not poll (issue 23): a local write kicks it, another process's
 * write wakes it through DatabaseNotifications (a trigger on `index_queue`), a failed entry arms
 * a timer for its retry, and a slow safety poll catches the rest.
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
    private readonly queue: IndexQueueRepository,
    private readonly index: LanceIndex,
    private readonly reindex: ReindexService,
    private readonly applier: IndexEntryApplier,
    private readonly notifications: DatabaseNotifications,
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
    if (!this.index.ready || this.reindex.isRunning) return 0;
    this.lastPassAt = Date.now();
    const { batch, max_attempts, backoff_base, backoff_max } = this.config.get().memory.worker;
    const backoff = { maxAttempts: max_attempts, baseMs: backoff_base, maxMs: backoff_max };
    let total = 0;
    let retryInMs: number | undefined;
    while (!this.stopped && !this.reindex.isRunning) {
      const entries = await this.queue.claim(batch);
      if (entries.length === 0) break;
      const failures = await this.applier.applyIsolated(entries);
      const failed = new Set(failures.flatMap((f) => f.ids));
      await this.queue.complete(entries.filter((e) => !failed.has(e.id)).map((e) => e.id));
      for (const f of failures) {
        const parked = await this.queue.fail(f.ids, f.error, backoff);
        for (const e of entries) if (f.ids.includes(e.id)) retryInMs = Math.min(retryInMs ?? Infinity, retryDelayMs(e.attempts, backoff));
        this.lastError = { at: new Date().toISOString(), message: f.error };
        this.logger.warn(
          `memory index: ${f.ids.length} entr${f.ids.length === 1 ? 'y' : 'ies'} failed (${f.error})${parked ? `; ${parked} parked` : ''}`,
        );
      }
      total += entries.length;
      if (entries.length < batch) break;
    }
    if (retryInMs !== undefined) this.retryAfter(retryInMs);
    this.kickAfterReindex();
    return total;
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
    this.optimizing = this.index.optimize().catch((e: unknown) => this.logger.warn(`memory index optimize: ${(e as Error).message}`));
    await this.optimizing;
    this.optimizing = undefined;
  }
}

/** When a failed entry is due again: as `IndexQueueRepository.fail` computes it (its attempts before this failure). */
function retryDelayMs(attempts: number, o: { baseMs: number; maxMs: number }): number {
  return Math.min(o.maxMs, o.baseMs * 2 ** attempts);
}
