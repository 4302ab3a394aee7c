import { NestclawError } from '@nestclaw/common';

/** Memory failures a caller can see; each maps to a shared error code the gateway turns into HTTP. */
export type MemoryErrorCode = 'memory_not_found' | 'memory_invalid' | 'memory_disabled' | 'memory_reindex_running';

const CODES: Record<MemoryErrorCode, 'not_found' | 'invalid_request' | 'conflict' | 'provider_not_configured'> = {
  memory_not_found: 'not_found',
  memory_invalid: 'invalid_request',
  memory_disabled: 'provider_not_configured',
  memory_reindex_running: 'conflict',
};

export function memoryError(code: MemoryErrorCode, message: string): NestclawError {
  return new NestclawError(CODES[code], message, { reason: code });
}
