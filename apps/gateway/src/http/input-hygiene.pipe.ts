import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { findInvalidText } from './input-hygiene';

const LABELS: Record<string, string> = { body: 'Invalid request body', query: 'Invalid query', param: 'Invalid path parameter' };

/**
 * Global pipe: every body, query string and path parameter is checked for characters PostgreSQL
 * cannot store (see input-hygiene.ts) before any route-level validation, so no route can forget.
 */
@Injectable()
export class InputHygienePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const label = Object.hasOwn(LABELS, metadata.type) ? LABELS[metadata.type] : undefined;
    if (!label) return value;
    // Raw bytes (a webhook's body) are checked by whoever parses them, after their signature; walking
    // a Buffer key by key would only cost an unauthenticated caller's megabyte a million steps.
    if (Buffer.isBuffer(value)) return value;
    const why = findInvalidText(value, metadata.data ?? '');
    if (why) throw new NestclawError('invalid_request', `${label}: ${why}`);
    return value;
  }
}
