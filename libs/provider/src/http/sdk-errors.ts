import type { ProbeResult } from '../model-provider.port';
import { classifyHttpFailure, classifyTransportFailure, parseRetryAfter, ProviderAttemptError } from '../provider.errors';
import { parseRateLimitHeaders } from './rate-limit.headers';

/** What both official SDKs (openai, @anthropic-ai/sdk) throw for an HTTP error answer. */
interface SdkHttpError extends Error {
  status: number;
  headers?: Headers;
}

/** An answered request; aborts, timeouts and connection errors carry no status. */
function isSdkHttpError(e: unknown): e is SdkHttpError {
  return e instanceof Error && typeof (e as { status?: unknown }).status === 'number';
}

/**
 * Turns an SDK error into a classified attempt error for the ReliableProvider. An `error` event
 * inside an open stream (e.g. Anthropic's overloaded_error) has no status and is retried elsewhere.
 */
export function classifySdkFailure(e: unknown, signal?: AbortSignal): ProviderAttemptError {
  if (!signal?.aborted && isSdkHttpError(e)) {
    return classifyHttpFailure({
      status: e.status,
      message: e.message,
      retryAfterMs: parseRetryAfter(e.headers?.get('retry-after')),
      rateLimit: parseRateLimitHeaders(e.headers),
    });
  }
  return classifyTransportFailure(e, signal);
}

/** A model-list probe that failed: an HTTP answer still means reachable (a 404 list is fine). */
export function probeFailure(e: unknown, latencyMs: number): ProbeResult {
  if (isSdkHttpError(e)) {
    const keyRejected = e.status === 401 || e.status === 403;
    return { reachable: true, status: e.status, keyRejected, latencyMs, error: keyRejected ? e.message : undefined };
  }
  return { reachable: false, keyRejected: false, latencyMs, error: (e as Error).message };
}
