import { z } from 'zod';

/** How long rows of tables that grow without bound are kept (days; 0 = keep forever). Swept hourly. */
export const retentionSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    conversation_log_days: z.number().int().min(0).default(365),
    inbound_messages_days: z.number().int().min(0).default(30),
    outbound_messages_days: z.number().int().min(0).default(30),
    audit_log_days: z.number().int().min(0).default(365),
    llm_calls_days: z.number().int().min(0).default(400),
    security_events_days: z.number().int().min(0).default(180),
    /** Rows deleted per statement, so a sweep never holds long locks. */
    batch_size: z.number().int().min(100).max(100_000).default(5000),
  })
  .prefault({});
