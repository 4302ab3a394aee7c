import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DatabaseService } from '@nestclaw/db';
import type { DeliveryTarget } from '../scheduler/job-output.port';

/** The system job whose runs carry a hook's answers: a stable id per hook, so every replica finds the same one. */
export function webhookJobId(hookId: string): string {
  const h = createHash('sha256').update(`nestclaw:webhook:${hookId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface AcceptedDelivery {
  hookId: string;
  deliveryId: string;
  agentId: string;
  sessionId: string;
  turnId: string;
  /** The chat the answer goes to (stored on the hook's system job, where the scheduler's retries read it). */
  deliverTo: DeliveryTarget | undefined;
  /** `sha256=<hex>` of a timestamped hook's request (unique per hook); undefined for a body-only signature. */
  signature: string | undefined;
  now: Date;
}

/**
 * Accepted webhook deliveries (webhook_deliveries) and the job runs that carry their answers. A hook
 * is one `kind = 'webhook'` scheduled job (never listed or claimed as a job, like heartbeats) and a
 * delivery one of its runs, so the answer goes out through JobOutputDispatcher — the same lease,
 * retry and outbound record as a scheduled job's answer — and not through a second delivery path.
 */
@Injectable()
export class WebhookRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Records a delivery and opens its run, in one transaction; undefined when (hook, delivery id),
   * or (hook, signature) of a timestamped hook, was accepted before — by this replica or another, before a restart or not: the primary key
   * decides, so two racing copies of one request cannot both pass.
   */
  async accept(d: AcceptedDelivery): Promise<{ runId: string } | undefined> {
    return this.db.transaction(async (client) => {
      const fresh = await this.db.query(
        // No conflict target: either unique key — the delivery id or the signature — makes it a replay.
        `INSERT INTO webhook_deliveries (hook_id, delivery_id, received_at, session_id, turn_id, signature)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1`,
        [d.hookId, d.deliveryId, d.now, d.sessionId, d.turnId, d.signature ?? null],
        { client },
      );
      if (!fresh.rowCount) return undefined;
      const jobId = webhookJobId(d.hookId);
      // The job row is locked until commit: deliveries of one hook get distinct due times in order,
      // which (job_id, due_at) being unique requires.
      await this.db.query(
        `INSERT INTO scheduled_jobs (id, agent_id, session_id, schedule, message, deliver_to, enabled, kind)
         VALUES ($1, $2, $3, '{"webhook": true}', $4, $5, false, 'webhook')
         ON CONFLICT (id) DO UPDATE SET agent_id = EXCLUDED.agent_id, session_id = EXCLUDED.session_id, deliver_to = EXCLUDED.deliver_to`,
        [jobId, d.agentId, d.sessionId, `webhook ${d.hookId}`, d.deliverTo ? JSON.stringify(d.deliverTo) : null],
        { client },
      );
      const { rows } = await this.db.query<{ id: string }>(
        `INSERT INTO job_runs (job_id, due_at, status, started_at, session_id, turn_id)
         SELECT $1, greatest($2::timestamptz, max(due_at) + interval '1 millisecond'), 'running', $2, $3, $4
           FROM job_runs WHERE job_id = $1
         RETURNING id::text`,
        [jobId, d.now, d.sessionId, d.turnId],
        { client },
      );
      const runId = rows[0].id;
      await this.db.query(
        `UPDATE webhook_deliveries SET job_run_id = $3 WHERE hook_id = $1 AND delivery_id = $2`,
        [d.hookId, d.deliveryId, runId],
        {
          client,
        },
      );
      return { runId };
    });
  }
}
