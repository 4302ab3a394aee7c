import { z } from 'zod';

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

export const listMemorySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** The last id of the previous page. */
  before: z.string().max(100).optional(),
  scope,
  agentId,
});

export const scopeQuerySchema = z.object({ scope, agentId });
