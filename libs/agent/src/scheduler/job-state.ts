import type { ScheduledJob } from './scheduled-job.repository';

/**
 * What a job is doing, from the two columns the scheduler keeps: `enabled` (the claim takes it) and
 * `nextRunAt`. A claim that finds no next run clears both (a one-time job that ran, or was missed);
 * a pause clears only `enabled` and keeps the next due time, which is how the two are told apart.
 */
export type JobState = 'active' | 'paused' | 'finished';

export function jobState(job: { enabled: boolean; nextRunAt: ScheduledJob['nextRunAt'] | Date }): JobState {
  if (job.enabled) return 'active';
  return job.nextRunAt === null ? 'finished' : 'paused';
}
