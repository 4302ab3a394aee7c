/**
 * Every failure a user can see has a stable code. Domain code throws NestclawError with one of
 * these; the gateway maps each code to an HTTP status in one exhaustive switch
 * (apps/gateway/src/errors/error-status.ts), channels map them to a reply.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'session_not_found'
  | 'payload_too_large'
  | 'rate_limited'
  | 'pairing_locked'
  | 'cancelled'
  | 'provider_not_configured'
  | 'provider_error'
  | 'provider_auth_failed'
  | 'context_length_exceeded'
  | 'timeout_budget_exhausted'
  | 'budget_exceeded'
  | 'job_limit_reached'
  | 'stream_interrupted'
  | 'database_unavailable'
  | 'config_invalid'
  | 'webhook_signature_invalid'
  | 'webhook_replayed'
  | 'webhook_timestamp_expired'
  | 'internal';

export class NestclawError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'NestclawError';
  }
}

export function isNestclawError(e: unknown): e is NestclawError {
  return e instanceof NestclawError;
}
