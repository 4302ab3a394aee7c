import { NestclawError } from '@nestclaw/common';
import type { RateLimitInfo } from './model-provider.port';

/** What the ReliableProvider does with a failed attempt. */
export type FailureClass = 'retryable' | 'auth' | 'bad_request' | 'context_length' | 'cancelled';

/** One failed call to one backend, classified so the ReliableProvider can decide what to do. */
export class ProviderAttemptError extends Error {
  constructor(
    readonly failure: FailureClass,
    readonly status: number | undefined,
    message: string,
    /** How long the provider asked us to wait (429/503 `Retry-After` or the backend's equivalent). */
    readonly retryAfterMs?: number,
    readonly rateLimit?: RateLimitInfo,
  ) {
    super(message);
    this.name = 'ProviderAttemptError';
  }
}

const CONTEXT_LENGTH =
  /context[_ ]length|maximum context|too many tokens|prompt is too long|context window|input is too long|exceeds the maximum number of tokens/i;

/** `Retry-After` is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface HttpFailure {
  status: number | undefined;
  message: string;
  retryAfterMs?: number;
  rateLimit?: RateLimitInfo;
  /** The backend said the key is bad in its own way (e.g. Gemini answers 400 API_KEY_INVALID). */
  keyRejected?: boolean;
}

/** Classifies an HTTP status + message from any backend. */
export function classifyHttpFailure(f: HttpFailure): ProviderAttemptError {
  const { status, message } = f;
  if (status === 401 || status === 403 || f.keyRejected) return new ProviderAttemptError('auth', status, message);
  if ((status === 400 || status === 413 || status === 422) && CONTEXT_LENGTH.test(message)) {
    return new ProviderAttemptError('context_length', status, message);
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
    return new ProviderAttemptError('bad_request', status, message);
  }
  return new ProviderAttemptError('retryable', status, message, f.retryAfterMs, f.rateLimit);
}

/** A network-level failure (refused, reset, DNS) or an aborted request, from fetch or an SDK. */
export function classifyTransportFailure(e: unknown, signal: AbortSignal | undefined): ProviderAttemptError {
  if (signal?.aborted) return new ProviderAttemptError('cancelled', undefined, 'request aborted');
  if (e instanceof ProviderAttemptError) return e;
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  const cause = err?.cause?.code ?? err?.cause?.message;
  return new ProviderAttemptError('retryable', undefined, `${err?.message ?? String(e)}${cause ? ` (${cause})` : ''}`);
}

export function providerNotConfigured(): NestclawError {
  return new NestclawError(
    'provider_not_configured',
    'No model provider is configured. Set OPENAI_BASE_URL and OPENAI_API_KEY (and optionally NESTCLAW_MODEL), or add a `models:` section to config.yaml, then retry.',
  );
}
