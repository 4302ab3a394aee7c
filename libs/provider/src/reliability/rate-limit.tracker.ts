import { Injectable } from '@nestjs/common';
import type { RateLimitInfo } from '../model-provider.port';
import { Clock } from './clock';

export interface Limits {
  rpm?: number;
  tpm?: number;
}

const WINDOW_MS = 60_000;
/** When a provider says "0 left" without saying when that resets, assume its minute window. */
const DEFAULT_RESET_MS = WINDOW_MS;

interface Entry {
  at: number;
  tokens: number;
}

/** The provider's own count, from its last response headers, minus what we sent since. */
interface HeaderView {
  remainingRequests?: number;
  remainingTokens?: number;
  requestsResetAt: number;
  tokensResetAt: number;
}

interface ModelWindow {
  entries: Entry[];
  header?: HeaderView;
  /** After a 429: not before this time. */
  throttledUntil?: number;
}

export interface Reservation {
  readonly name: string;
  readonly entry: Entry;
}

export interface RateLimitSnapshot {
  requestsLastMinute: number;
  tokensLastMinute: number;
  remainingRequests?: number;
  remainingTokens?: number;
  /** Set while the model is being routed around. */
  blockedUntil?: number;
}

/**
 * Requests and tokens per minute per model, from config `limits` (counted here) and from the
 * provider's `x-ratelimit-remaining-*` headers. A model at its limit is skipped before it answers 429.
 */
@Injectable()
export class RateLimitTracker {
  private readonly windows = new Map<string, ModelWindow>();

  constructor(private readonly clock: Clock) {}

  private window(name: string): ModelWindow {
    let w = this.windows.get(name);
    if (!w) {
      w = { entries: [] };
      this.windows.set(name, w);
    }
    const cutoff = this.clock.now() - WINDOW_MS;
    let drop = 0;
    while (drop < w.entries.length && w.entries[drop].at <= cutoff) drop++;
    if (drop) w.entries.splice(0, drop);
    return w;
  }

  /** Undefined when the model can take a request of about `tokens` now, else when it can. */
  blockedUntil(name: string, limits: Limits | undefined, tokens: number): number | undefined {
    const now = this.clock.now();
    const w = this.window(name);
    let until = w.throttledUntil !== undefined && w.throttledUntil > now ? w.throttledUntil : undefined;
    const later = (t: number) => (until = until === undefined ? t : Math.max(until, t));
    if (limits?.rpm !== undefined && w.entries.length >= limits.rpm) {
      later(w.entries[w.entries.length - limits.rpm].at + WINDOW_MS);
    }
    if (limits?.tpm !== undefined && tokens <= limits.tpm) {
      let used = w.entries.reduce((n, e) => n + e.tokens, 0);
      // The earliest moment enough of the window has expired for this request to fit.
      for (let i = 0; used + tokens > limits.tpm && i < w.entries.length; i++) {
        used -= w.entries[i].tokens;
        if (used + tokens <= limits.tpm) later(w.entries[i].at + WINDOW_MS);
      }
    }
    const h = w.header;
    if (h) {
      if (h.remainingRequests !== undefined && h.remainingRequests <= 0 && h.requestsResetAt > now) later(h.requestsResetAt);
      if (h.remainingTokens !== undefined && h.remainingTokens < tokens && h.tokensResetAt > now) later(h.tokensResetAt);
    }
    return until;
  }

  /** Counts a request as it is sent (so concurrent requests see each other). */
  reserve(name: string, tokens: number): Reservation {
    const w = this.window(name);
    const entry = { at: this.clock.now(), tokens };
    w.entries.push(entry);
    if (w.header?.remainingRequests !== undefined) w.header.remainingRequests--;
    if (w.header?.remainingTokens !== undefined) w.header.remainingTokens -= tokens;
    return { name, entry };
  }

  /** Replaces the estimate with the real token count and takes in the provider's headers. */
  settle(r: Reservation, actualTokens: number | undefined, info: RateLimitInfo | undefined): void {
    if (actualTokens !== undefined) r.entry.tokens = actualTokens;
    if (info) this.observe(r.name, info);
  }

  /** A 429: keep away until Retry-After (or the reset the headers name). */
  throttled(name: string, retryAfterMs: number | undefined, info: RateLimitInfo | undefined): void {
    if (info) this.observe(name, info);
    const wait = retryAfterMs ?? info?.resetRequestsMs ?? info?.resetTokensMs ?? 1000;
    const w = this.window(name);
    w.throttledUntil = Math.max(w.throttledUntil ?? 0, this.clock.now() + wait);
  }

  private observe(name: string, info: RateLimitInfo): void {
    const now = this.clock.now();
    this.window(name).header = {
      remainingRequests: info.remainingRequests,
      remainingTokens: info.remainingTokens,
      requestsResetAt: now + (info.resetRequestsMs ?? DEFAULT_RESET_MS),
      tokensResetAt: now + (info.resetTokensMs ?? DEFAULT_RESET_MS),
    };
  }

  snapshot(name: string, limits: Limits | undefined): RateLimitSnapshot {
    const w = this.window(name);
    return {
      requestsLastMinute: w.entries.length,
      tokensLastMinute: w.entries.reduce((n, e) => n + e.tokens, 0),
      remainingRequests: w.header?.remainingRequests,
      remainingTokens: w.header?.remainingTokens,
      blockedUntil: this.blockedUntil(name, limits, 1),
    };
  }
}
