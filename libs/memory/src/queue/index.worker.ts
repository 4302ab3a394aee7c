import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { FailureThrottle } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { LanceIndex } from '../index/lance.index';
import { ReindexService } from '../index/reindex.service';
import { IndexEntryApplier } from './index-entry.applier';
import { IndexQueueRepository } from './index-queue.repository';

const DRAIN = 'memory-index-drain';
const OPTIMIZE = 'memory-index-optimize';

/**
 * Drains `index_queue` into the derived index. Each entry means "make the index agree with
 * Postgres about this memory", so applying one twice is harmless and a crash anywhere only delays
 * it. Failures retry with exponential backoff and are parked after `memory.worker.max_attempts`
 * (listed by /doctor). Polls on @nestjs/schedule intervals and is also woken right after a local write.
 */
/** How long shutdown waits for index work in flight. */
const SHUTDOWN_WAIT_MS = 10_000;

@Injectable()
export class IndexWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('MemoryWorker');
  private draining: Promise<number> | undefined;
  private again = false;
  private stopped = false;
  private lastIdleOptimize = 0;
  private lastPassAt = 0;
  private kickTimer: NodeJS.Timeout | undefined;
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
    private readonly scheduler: SchedulerRegistry,
  ) {
    this.failures = new FailureThrottle('memory index worker', this.logger, { baseDelayMs: config.get().memory.worker.interval });
  }

  onApplicationBootstrap(): void {
    const { worker, enabled } = this.config.get().memory;
    if (!enabled || !worker.enabled) return;
    this.scheduler.addInterval(
      DRAIN,
      // A pass begun by a kick less than half an interval ago already took what was due.
      setInterval(() => Date.now() - this.lastPassAt >= worker.interval / 2 && this.tick(), worker.interval),
    );
    this.scheduler.addInterval(
      OPTIMIZE,
      setInterval(() => void this.idleOptimize(), 10_000),
    );
  }

  /**
   * Before the pool and the index close: stop taking work and let a pass, an optimize or a rebuild
   * still touching the index finish (bounded), so nothing uses a closed table or pool.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const name of [DRAIN, OPTIMIZE]) if (this.scheduler.doesExist('interval', name)) this.scheduler.deleteInterval(name);
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
    const wait = Math.max(0, this.lastPassAt + this.config.get().memory.worker.interval - Date.now());
    this.kickTimer = setTimeout(() => {
      this.kickTimer = undefined;
      this.tick();
    }, wait);
  }

  private tick(): void {
    if (this.stopped || !this.config.get().memory.worker.enabled || !this.failures.due()) return;
    this.reindex.ensureCurrent();
    void this.drain().then(
      () => this.failures.succeeded(),
      (e: unknown) => {
        this.lastError = { at: new Date().toISOString(), message: (e as Error).message };
        this.failures.failed(e);
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
    if (!this.index.ready || this.reindex.isRunning) return 0;
    this.lastPassAt = Date.now();
    const { batch, max_attempts, backoff_base, backoff_max } = this.config.get().memory.worker;
    const backoff = { maxAttempts: max_attempts, baseMs: backoff_base, maxMs: backoff_max };
    let total = 0;
    while (!this.stopped && !this.reindex.isRunning) {
      const entries = await this.queue.claim(batch);
      if (entries.length === 0) break;
      const failures = await this.applier.applyIsolated(entries);
      const failed = new Set(failures.flatMap((f) => f.ids));
      await this.queue.complete(entries.filter((e) => !failed.has(e.id)).map((e) => e.id));
      for (const f of failures) {
        const parked = await this.queue.fail(f.ids, f.error, backoff);
        this.lastError = { at: new Date().toISOString(), message: f.error };
        this.logger.warn(
          `memory index: ${f.ids.length} entr${f.ids.length === 1 ? 'y' : 'ies'} failed (${f.error})${parked ? `; ${parked} parked` : ''}`,
        );
      }
      total += entries.length;
      if (entries.length < batch) break;
    }
    return total;
  }

  private async idleOptimize(): Promise<void> {
    if (this.draining || this.reindex.isRunning || Date.now() - this.lastIdleOptimize < 30_000) return;
    this.lastIdleOptimize = Date.now();
    this.optimizing = this.index.optimize().catch((e: unknown) => this.logger.warn(`memory index optimize: ${(e as Error).message}`));
    await this.optimizing;
    this.optimizing = undefined;
  }
}
