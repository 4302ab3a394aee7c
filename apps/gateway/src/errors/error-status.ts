import type { ErrorCode } from '@nestclaw/common';

/** The one place domain error codes become HTTP statuses. */
export function statusFor(code: ErrorCode): number {
  switch (code) {
    case 'invalid_request':
    case 'config_invalid':
    case 'context_length_exceeded':
      return 400;
    case 'unauthorized':
    case 'webhook_signature_invalid':
    case 'webhook_timestamp_expired':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
    case 'session_not_found':
      return 404;
    case 'conflict':
    case 'job_limit_reached':
    case 'webhook_replayed':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'rate_limited':
    case 'pairing_locked':
    case 'budget_exceeded':
      return 429;
    case 'cancelled':
      return 499;
    case 'internal':
      return 500;
    case 'provider_error':
    case 'provider_auth_failed':
    case 'stream_interrupted':
      return 502;
    case 'provider_not_configured':
    case 'database_unavailable':
      return 503;
    case 'timeout_budget_exhausted':
      return 504;
  }
}
