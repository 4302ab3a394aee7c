import { Injectable, Logger } from '@nestjs/common';
import { RateLimitRepository } from './rate-limit.repository';

/** How often this process clears ended windows, piggybacked on a limited request (no timer to stop). */
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Fixed-window rate limits counted in PostgreSQL, so `security.rate_limit.*` holds for the sum of the
 * replicas (issue 24, item 5): a limit of N per window admits N across the deployment, not N per
 * process. Same answers as the in-memory RateLimiter, asynchronously: one UPSERT per limited hit.
 * Callers skip it for what is never limited (the owner token), so an owner's turn pays nothing.
 */
@Injectable()
export class SharedRateLimiter {
  private readonly logger = new Logger('RateLimit');
  private lastPrune = Date.now();

  constructor(private readonly windows: RateLimitRepository) {}

  /** Counts one hit; resolves 0 when allowed, else milliseconds until the key may try again. */
  async hit(key: string, limit: number, windowMs: number): Promise<number> {
    return (await this.check(key, limit, windowMs)).retryAfterMs;
  }

  /** Like hit(), also saying whether this is the first refused hit of the window (reply once, not per message). */
  async check(key: string, limit: number, windowMs: number): Promise<{ retryAfterMs: number; firstRefusal: boolean }> {
    const { hits, endsInMs } = await this.windows.countHit(key, Math.max(1, Math.round(windowMs)));
    this.pruneNowAndThen();
    if (hits <= limit) return { retryAfterMs: 0, firstRefusal: false };
    return { retryAfterMs: endsInMs, firstRefusal: hits === limit + 1 };
  }

  private pruneNowAndThen(): void {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    this.windows.deleteEnded().catch((e: unknown) => this.logger.warn(`could not prune rate-limit windows: ${(e as Error).message}`));
  }
}
