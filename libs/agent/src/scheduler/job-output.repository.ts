import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import type { JobOutput } from './job-output.port';

/** Delivery attempts per answer before it is left undelivered (logged): a chat that refuses us must not be retried forever. */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** The delivery state of run answers (job_runs.output … delivered_at). */
@Injectable()
export class JobOutputRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Answers whose delivery lease ran out undelivered (a crash or a failed send), leased again to this
   * process: SKIP LOCKED and the new lease keep two gateways from retrying the same one at once.
   */
  async claimPending(now: Date, leaseUntil: Date, limit: number): Promise<(JobOutput & { attempts: number })[]> {
    const { rows } = await this.db.query<JobOutput & { attempts: number }>(
      `UPDATE job_runs r SET delivery_attempts = r.delivery_attempts + 1, delivery_due_at = $2
         FROM scheduled_jobs j
        WHERE j.id = r.job_id AND r.id IN (
          SELECT id FROM job_runs
           WHERE delivered_at IS NULL AND output IS NOT NULL AND delivery_due_at <= $1 AND delivery_attempts < $4
           ORDER BY delivery_due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING r.id::text AS "runId", r.job_id::text AS "jobId", j.agent_id AS "agentId", j.kind, j.deliver_to AS target,
                  r.output AS text, r.delivery_attempts AS attempts`,
      [now, leaseUntil, limit, MAX_DELIVERY_ATTEMPTS],
    );
    return rows.filter((r) => r.target);
  }

  async markDelivered(runId: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE job_runs SET delivered_at = $2, delivery_due_at = NULL WHERE id = $1`, [runId, at]);
  }

  /** A failed send: retried once the lease runs out, up to MAX_DELIVERY_ATTEMPTS in all. */
  async retryAt(runId: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE job_runs SET delivery_due_at = $2 WHERE id = $1 AND delivered_at IS NULL`, [runId, at]);
  }
}
