import { z } from 'zod';
import { SESSION_ID_PATTERN } from '@nestclaw/agent';

export const clientFrameSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('chat'),
    id: z.string().min(1).max(100),
    message: z.string().trim().min(1).max(200_000),
    sessionId: z.string().regex(SESSION_ID_PATTERN).optional(),
    agentId: z.string().min(1).max(100).optional(),
  }),
  z.object({ type: z.literal('cancel'), id: z.string().min(1).max(100) }),
]);

export type ClientFrame = z.output<typeof clientFrameSchema>;
