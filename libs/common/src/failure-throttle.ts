/** Where a FailureThrottle writes (a Nest `Logger` fits). */
export interface FailureLog {
  error(message: string): void;
  warn(message: string): void;
}

export interface FailureThrottleOptions {
  /** Wait before the next attempt after the first failure; doubles with each failure in a row. */
  baseDelayMs: number;
  /** The longest wait between attempts during an outage (default 10 s). */
  maxDelayMs?: number;
  /** Repeats of one message are summed up at most once per window (default 60 s). */
  windowMs?: number;
  now?: () => number;
}

/** Distinct messages remembered during one outage; past it the oldest is forgotten (and logged again if it returns). */
const MAX_MESSAGES = 20;

/**
 * For a polling loop that keeps failing the same way while the database is down: without it, a loop
 * on a 200 ms interval logs five identical lines a second. A message is logged the first time it is
 * seen, its repeats are counted and summed up once per window ("still failing (N times in the last
 * 60 s)"), and the first success after failures gets one line. `due()` spaces the attempts out,
 * doubling the wait while the failures continue, so the loop also stops hammering a dead server.
 */
export class FailureThrottle {
  private streak = 0;
  private streakStartedAt = 0;
  private retryAt = 0;
  /** Per message: when it was last logged and how many times it failed since. */
  private readonly seen = new Map<string, { loggedAt: number; since: number }>();

  constructor(
    private readonly what: string,
    private readonly log: FailureLog,
    private readonly options: FailureThrottleOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  get failing(): boolean {
    return this.streak > 0;
  }

  /** Whether the loop should try now: always while things work, after the backoff while they fail. */
  due(): boolean {
    return this.streak === 0 || this.now() >= this.retryAt;
  }

  /** How long until `due()` turns true again (0 while things work): when to schedule the next attempt. */
  retryInMs(): number {
    return this.streak === 0 ? 0 : Math.max(0, this.retryAt - this.now());
  }

  failed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const now = this.now();
    if (this.streak === 0) this.streakStartedAt = now;
    this.streak++;
    const delay = this.options.baseDelayMs * 2 ** Math.min(this.streak - 1, 16);
    this.retryAt = now + Math.min(this.options.maxDelayMs ?? 10_000, delay);
    const window = this.options.windowMs ?? 60_000;
    const entry = this.seen.get(message);
    if (!entry) {
      if (this.seen.size >= MAX_MESSAGES) this.seen.delete(this.seen.keys().next().value as string);
      this.seen.set(message, { loggedAt: now, since: 0 });
      this.log.error(`${this.what}: ${message}`);
      return;
    }
    entry.since++;
    if (now - entry.loggedAt < window) return;
    this.log.error(
      `${this.what}: still failing (${entry.since} times in the last ${Math.round((now - entry.loggedAt) / 1000)} s): ${message}`,
    );
    entry.loggedAt = now;
    entry.since = 0;
  }

  succeeded(): void {
    if (this.streak === 0) return;
    const seconds = ((this.now() - this.streakStartedAt) / 1000).toFixed(1);
    this.log.warn(`${this.what}: recovered after ${this.streak} failed attempt${this.streak === 1 ? '' : 's'} over ${seconds} s`);
    this.streak = 0;
    this.retryAt = 0;
    this.seen.clear();
  }
}
