import { z } from 'zod';
import { duration } from './field-types';

/** Scheduled jobs (issue 13): claimed from Postgres so each due time runs once across processes. */
export const schedulerSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** How often due jobs are looked for. */
    tick: duration.default(1_000),
    /** A job missed while the gateway was down still runs at start-up if it is at most this late; else it is recorded as missed. */
    grace: duration.default(300_000),
    /** Most jobs started per tick. */
    batch: z.number().int().min(1).max(100).default(10),
  })
  .prefault({});
