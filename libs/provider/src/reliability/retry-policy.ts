export interface RetrySettings {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Below this, a retry after sleeping would have no time left to answer. */
export const MIN_USEFUL_ATTEMPT_MS = 100;

/** Exponential backoff with equal jitter: half fixed, half random, capped at `maxDelayMs`. */
export function backoffMs(failedAttempts: number, s: RetrySettings, random: () => number = Math.random): number {
  const exp = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

export type RetryDecision = { kind: 'retry'; delayMs: number } | { kind: 'next_model'; reason: string };

/**
 * After a retryable failure on one model: sleep and try it again only if attempts remain and the
 * wait (backoff, or a longer Retry-After) fits in the time this model has left; otherwise move on.
 */
export function decideRetry(input: {
  failedAttempts: number;
  retryAfterMs?: number;
  timeLeftMs: number;
  settings: RetrySettings;
  random?: () => number;
}): RetryDecision {
  const { failedAttempts, retryAfterMs, timeLeftMs, settings } = input;
  if (failedAttempts >= settings.maxAttempts) return { kind: 'next_model', reason: `${failedAttempts} attempt(s) failed` };
  if (retryAfterMs !== undefined && retryAfterMs > settings.maxDelayMs) {
    return { kind: 'next_model', reason: `asked to wait ${Math.round(retryAfterMs / 1000)} s` };
  }
  const delayMs = Math.max(backoffMs(failedAttempts, settings, input.random), retryAfterMs ?? 0);
  if (delayMs + MIN_USEFUL_ATTEMPT_MS > timeLeftMs) return { kind: 'next_model', reason: 'no time left to back off' };
  return { kind: 'retry', delayMs };
}
