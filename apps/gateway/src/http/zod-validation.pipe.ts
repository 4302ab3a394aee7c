import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { NestclawError } from '@nestclaw/common';

/** Where a value came from, as named in error messages. */
export type InputSource = 'body' | 'query' | 'param' | 'frame';

const LABELS: Record<InputSource, string> = {
  body: 'Invalid request body',
  query: 'Invalid query',
  param: 'Invalid path parameter',
  frame: 'Bad frame',
};

/** The one formatter for validation failures: every offending field, by path, in one message. */
export function validationError(source: InputSource, issues: readonly z.core.$ZodIssue[], name?: string): NestclawError {
  const why = issues.map((i) => {
    const keys = (i as { keys?: string[] }).keys;
    const path = [name, ...i.path.map(String)].filter(Boolean).join('.') || keys?.join(', ') || source;
    return `${path}: ${i.message}`;
  });
  return new NestclawError('invalid_request', `${LABELS[source]}: ${why.join('; ')}`);
}

/** Validates `value` against `schema` or throws the 400 naming every offending field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, source: InputSource, name?: string): z.output<S> {
  if (source === 'body' || source === 'frame') {
    if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new NestclawError('invalid_request', source === 'body' ? 'Body must be a JSON object' : 'Bad frame: must be a JSON object');
    }
  }
  const result = schema.safeParse(source === 'query' ? (value ?? {}) : value);
  if (result.success) return result.data;
  throw validationError(source, result.error.issues, name);
}

/**
 * The one validation pipe for bodies, query strings and path parameters:
 * `@Body(new ZodPipe(schema))`, `@Query(new ZodPipe(schema))`, `@Param('id', new ZodPipe(schema))`.
 * The schema is public so the OpenAPI document (apps/gateway/src/openapi) describes what is validated.
 */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(readonly schema: S) {}

  transform(value: unknown, metadata: ArgumentMetadata): z.output<S> {
    const source: InputSource = metadata.type === 'body' ? 'body' : metadata.type === 'query' ? 'query' : 'param';
    return validate(this.schema, value, source, source === 'param' ? metadata.data : undefined);
  }
}
