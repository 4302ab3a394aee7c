import { Logger } from '@nestjs/common';

/**
 * The last value of a slow reading (a database query), refreshed in the background so a scrape
 * never waits on it: `current()` answers at once with what is known and, when that is older than
 * `maxAgeMs`, starts one refresh (never more than one in flight). A failed refresh keeps the old
 * value; failures are counted and logged once per run of failures, not once per scrape.
 */
export class BackgroundReading<T> {
  private value: T | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private inFlight = false;
  private failing = false;
  /** Refreshes that failed since start. */
  failures = 0;

  constructor(
    private readonly read: () => Promise<T> | undefined,
    private readonly maxAgeMs: number,
    private readonly what: string,
    private readonly logger = new Logger('Metrics'),
  ) {}

  /** The last known value (undefined until a first read succeeds). */
  current(): T | undefined {
    if (!this.inFlight && Date.now() - this.readAt >= this.maxAgeMs) this.refresh();
    return this.value;
  }

  private refresh(): void {
    let pending: Promise<T> | undefined;
    try {
      pending = this.read();
    } catch (e) {
      this.failed(e);
      return;
    }
    if (!pending) return;
    this.inFlight = true;
    pending.then(
      (v) => {
        this.value = v;
        this.readAt = Date.now();
        this.inFlight = false;
        this.failing = false;
      },
      (e: unknown) => {
        this.inFlight = false;
        this.failed(e);
      },
    );
  }

  private failed(e: unknown): void {
    // Retried no sooner than a fresh value would be: a down database is not queried on every scrape.
    this.readAt = Date.now();
    this.failures++;
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(`${this.what}: reading failed, keeping the last value (${(e as Error)?.message ?? String(e)})`);
  }
}
