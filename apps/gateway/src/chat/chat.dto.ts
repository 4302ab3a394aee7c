import { z } from 'zod';
import { SESSION_ID_PATTERN } from '@nestclaw/agent';

export const chatRequestSchema = z.object({
  message: z.string().trim().min(1, 'must be a non-empty string').max(200_000),
  sessionId: z.string().regex(SESSION_ID_PATTERN, 'must be 1-200 characters of letters, digits and :._@-').optional(),
  agentId: z.string().min(1).max(100).optional(),
  stream: z.boolean().optional(),
});

export type ChatRequestDto = z.output<typeof chatRequestSchema>;
