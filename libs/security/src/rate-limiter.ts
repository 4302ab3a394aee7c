/**
 * Fixed-window counter per key, in memory: it holds for one process only. Limits that must hold for
 * the deployment (several replicas) use SharedRateLimiter, which counts in PostgreSQL. Limits exist
 * to stop a runaway script or a flood from one sender, not to meter billing.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one hit; returns 0 when allowed, else milliseconds until the key may try again. */
  hit(key: string, limit: number, windowMs: number): number {
    return this.check(key, limit, windowMs).retryAfterMs;
  }

  /** Like hit(), also saying whether this is the first refused hit of the window (reply once, not per message). */
  check(key: string, limit: number, windowMs: number): { retryAfterMs: number; firstRefusal: boolean } {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) this.prune(t, windowMs);
    }
    w.count++;
    if (w.count <= limit) return { retryAfterMs: 0, firstRefusal: false };
    return { retryAfterMs: Math.max(1, w.start + windowMs - t), firstRefusal: w.count === limit + 1 };
  }

  private prune(t: number, windowMs: number): void {
    for (const [k, w] of this.windows) if (t - w.start >= windowMs) this.windows.delete(k);
  }
}
