import { z } from 'zod';
import { duration } from './field-types';

export const providersSchema = z
  .strictObject({
    primary: z.string().optional(),
    fallback: z.array(z.string()).default([]),
    timeout_budget: duration.default(120_000),
    /** Cap on one model's share of the budget; unset = the budget split evenly over the models left. */
    attempt_timeout: duration.optional(),
    retry: z
      .strictObject({
        max_attempts: z.number().int().min(1).max(10).default(3),
        base_delay: duration.default(500),
        max_delay: duration.default(8_000),
      })
      .prefault({}),
    circuit_breaker: z
      .strictObject({
        threshold: z.number().int().min(1).default(3),
        reset_interval: duration.default(60_000),
      })
      .prefault({}),
    /** How long a non-streaming answer is kept to be replayed for the same request (0 = off). */
    idempotency_ttl: duration.default(600_000),
  })
  .prefault({});
