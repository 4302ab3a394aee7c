import CircuitBreaker from 'opossum';
import type { EventEmitter } from 'node:events';
import { Clock } from './clock';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerSettings {
  /** Consecutive failures that open the breaker. */
  threshold: number;
  /** How long it stays open before one probe is let through. */
  resetIntervalMs: number;
}

/** Settles the breaker's view of one attempt. */
export interface BreakerPermit {
  succeeded(): void;
  failed(): void;
  /** The attempt says nothing about the model's health (cancelled by the caller, rejected as a bad request). */
  neutral(): void;
}

/** Length of the rolling window behind "recent error rate". */
export const ERROR_RATE_WINDOW_MS = 5 * 60_000;
export const ERROR_RATE_BUCKETS = 10;
/** Opossum must never leave the open state on its own timer: our clock decides when. */
const NEVER_MS = 2_147_483_647;
const HALF_OPEN_STATE = { enabled: true, closed: false, halfOpen: true, warmUp: false, shutdown: false };

type Gate = () => Promise<void>;

/**
 * One model's breaker. Opossum holds the state machine (closed → open → half-open with exactly one
 * probe → closed/open), the events and the rolling stats; this wrapper adds what opossum 9 lacks:
 * opening after N *consecutive* failures, and an injectable clock for the open → half-open move
 * (opossum only has a real-time `resetTimeout`). Opossum's own timer is disabled; when the clock
 * says the reset interval has passed, the breaker is rebuilt in half-open state through opossum's
 * public `state`/`status` options, keeping its statistics.
 */
export class ModelBreaker {
  private breaker: CircuitBreaker<[Gate], void>;
  private readonly status: CircuitBreaker.Status;
  private consecutiveFailures = 0;
  private openedAt: number | undefined;
  lastAuthFailure: { at: number; status?: number; message: string } | undefined;

  constructor(
    readonly name: string,
    private readonly clock: Clock,
    private readonly settings: () => BreakerSettings,
    rotate: EventEmitter,
  ) {
    this.status = CircuitBreaker.newStatus({
      rollingCountTimeout: ERROR_RATE_WINDOW_MS,
      rollingCountBuckets: ERROR_RATE_BUCKETS,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
      rotateBucketController: rotate,
    });
    this.breaker = this.create(false);
  }

  private create(halfOpen: boolean): CircuitBreaker<[Gate], void> {
    const options = {
      name: this.name,
      timeout: false as const,
      resetTimeout: NEVER_MS,
      // Never open on a percentage: we open on consecutive failures (below).
      errorThresholdPercentage: 100,
      rollingCountTimeout: ERROR_RATE_WINDOW_MS,
      rollingCountBuckets: ERROR_RATE_BUCKETS,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
      status: this.status,
      ...(halfOpen ? { state: HALF_OPEN_STATE } : {}),
    };
    const b = new CircuitBreaker<[Gate], void>((gate: Gate) => gate(), options as CircuitBreaker.Options<[Gate]>);
    b.on('failure', () => {
      if (++this.consecutiveFailures >= this.settings().threshold) b.open();
    });
    b.on('success', () => {
      this.consecutiveFailures = 0;
    });
    b.on('open', () => {
      this.openedAt = this.clock.now();
    });
    b.on('close', () => {
      this.openedAt = undefined;
    });
    return b;
  }

  /** Moves open → half-open once the reset interval has passed on the clock. */
  private refresh(): void {
    if (!this.breaker.opened || this.openedAt === undefined) return;
    if (this.clock.now() - this.openedAt < this.settings().resetIntervalMs) return;
    const old = this.breaker;
    old.removeAllListeners();
    old.close(); // clears its (never-firing) reset timer; nobody listens any more
    this.breaker = this.create(true);
  }

  get state(): BreakerState {
    this.refresh();
    if (this.breaker.closed) return 'closed';
    return this.breaker.halfOpen ? 'half_open' : 'open';
  }

  /** Whether a call would be let through now (closed, or half-open with its probe not yet taken). */
  get available(): boolean {
    this.refresh();
    return this.breaker.closed || (this.breaker.halfOpen && this.breaker.pendingClose);
  }

  /** When an open breaker will let its probe through; undefined when closed or the probe is out. */
  get probeAt(): number | undefined {
    this.refresh();
    return this.breaker.opened && this.openedAt !== undefined ? this.openedAt + this.settings().resetIntervalMs : undefined;
  }

  /**
   * Asks to make a call. Opossum decides synchronously whether the gate runs (closed, or the single
   * half-open probe); undefined means the breaker refused.
   */
  acquire(): BreakerPermit | undefined {
    this.refresh();
    let admitted = false;
    let settle!: { resolve: () => void; reject: (e: Error) => void };
    const gate = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    this.breaker
      .fire(() => {
        admitted = true;
        return gate;
      })
      .catch(() => undefined);
    if (!admitted) return undefined;
    const wasProbe = this.breaker.halfOpen;
    return {
      succeeded: () => {
        this.lastAuthFailure = undefined;
        settle.resolve();
      },
      failed: () => settle.reject(new Error('attempt failed')),
      neutral: () => {
        // A probe that taught us nothing must not close the breaker: re-open it with the same
        // openedAt so the next request may probe again at once.
        if (wasProbe) {
          const openedAt = this.openedAt ?? this.clock.now() - this.settings().resetIntervalMs;
          this.breaker.open();
          this.openedAt = openedAt;
          settle.resolve();
          return;
        }
        settle.resolve();
      },
    };
  }

  /** Calls, failures and error rate over the last ERROR_RATE_WINDOW_MS. */
  stats(): { calls: number; failures: number; rejected: number; errorRate: number } {
    this.refresh();
    const s = this.status.stats;
    const calls = s.successes + s.failures;
    return { calls, failures: s.failures, rejected: s.rejects, errorRate: calls ? s.failures / calls : 0 };
  }

  dispose(): void {
    this.breaker.removeAllListeners();
    this.breaker.close();
    (this.status as CircuitBreaker.Status & { shutdown(): void }).shutdown();
  }
}
