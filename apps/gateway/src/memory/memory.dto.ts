import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';

const agentId = z.string().min(1).max(100).default('default');
/** Someone else's memories: only for tokens with the admin scope. */
const scope = z.string().min(1).max(200).optional();

export const storeMemorySchema = z.object({
  content: z.string().min(1).max(20_000),
  metadata: z.record(z.string(), z.unknown()).optional(),
  scope,
  agentId,
  supersedes: z.string().optional(),
});

export const searchMemorySchema = z.object({
  q: z.string().min(1).max(2000),
  k: z.coerce.number().int().min(1).max(50).default(5),
  mode: z.enum(['keyword', 'vector', 'hybrid']).optional(),
  scope,
  agentId,
});

export const scopeQuerySchema = z.object({ scope, agentId });

export function parseQuery<S extends z.ZodType>(schema: S, q: unknown): z.output<S> {
  const r = schema.safeParse(q ?? {});
  if (!r.success)
    throw new NestclawError(
      'invalid_request',
      `Invalid query: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}
