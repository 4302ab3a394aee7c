import { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { NestclawError } from '@nestclaw/common';

/** Validates a body at the edge and names every offending field in one 400. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new NestclawError('invalid_request', 'Body must be a JSON object');
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const why = result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  throw new NestclawError('invalid_request', `Invalid request body: ${why}`);
}

export class ZodBodyPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    return parseBody(this.schema, value);
  }
}
