import { NestclawError } from '@nestclaw/common';

/** What the ReliableProvider does with a failed attempt. */
export type FailureClass = 'retryable' | 'auth' | 'bad_request' | 'context_length' | 'cancelled';

export class ProviderAttemptError extends Error {
  constructor(
    readonly failure: FailureClass,
    readonly status: number | undefined,
    message: string,
    /** Seconds the provider asked us to wait (429/503 Retry-After). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = 'ProviderAttemptError';
  }
}

const CONTEXT_LENGTH = /context[_ ]length|maximum context|too many tokens|prompt is too long|context window/i;

/** Classifies an HTTP status + message from any backend. */
export function classifyHttpFailure(status: number | undefined, message: string, retryAfter?: string | null): ProviderAttemptError {
  const retryAfterSec = retryAfter ? Number(retryAfter) || undefined : undefined;
  if (status === 401 || status === 403) return new ProviderAttemptError('auth', status, message);
  if ((status === 400 || status === 413 || status === 422) && CONTEXT_LENGTH.test(message)) {
    return new ProviderAttemptError('context_length', status, message);
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
    return new ProviderAttemptError('bad_request', status, message);
  }
  return new ProviderAttemptError('retryable', status, message, retryAfterSec);
}

export function providerNotConfigured(): NestclawError {
  return new NestclawError(
    'provider_not_configured',
    'No model provider is configured. Set OPENAI_BASE_URL and OPENAI_API_KEY (and optionally NESTCLAW_MODEL), or add a `models:` section to config.yaml, then retry.',
  );
}
