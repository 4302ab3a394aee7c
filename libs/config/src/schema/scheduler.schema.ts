import { z } from 'zod';
import { duration } from './field-types';

/** Scheduled jobs (issue 13): claimed from Postgres so each due time runs once across processes. */
export const schedulerSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /**
     * The safety poll: the longest the scheduler sleeps without looking for due jobs. It is woken
     * sooner by a job's due time and by a job added or brought forward (docs/adr/0015-wake-ups.md).
     */
    tick: duration.default(30_000),
    /** A job missed while the gateway was down still runs at start-up if it is at most this late; else it is recorded as missed. */
    grace: duration.default(300_000),
    /** Most jobs started per tick. */
    batch: z.number().int().min(1).max(100).default(10),
    /**
     * Let turns nobody typed (a job's, the heartbeat's, a subagent's) add jobs with the cron tool.
     * Off: a job whose turn adds a job copies itself (2, 4, 8, … runs per interval).
     */
    automatic_turns_add_jobs: z.boolean().default(false),
    /** Most jobs one paired token or chat person may hold; each is a billed turn per interval. */
    max_jobs_per_owner: z.number().int().min(1).max(100_000).default(50),
    /** Most jobs the owner (the gateway token) may hold. */
    max_jobs_for_owner: z.number().int().min(1).max(100_000).default(200),
  })
  .prefault({});
