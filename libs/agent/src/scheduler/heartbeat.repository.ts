import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DatabaseService } from '@nestclaw/db';
import { ScheduledJobRepository } from './scheduled-job.repository';
import type { DeliveryTarget } from './job-output.port';
import type { JobRun } from './scheduled-job.repository';

/** The system job whose runs are an agent's heartbeats: a stable id per agent, so every process finds the same one. */
export function heartbeatJobId(agentId: string): string {
  const h = createHash('sha256').update(`nestclaw:heartbeat:${agentId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** An agent's heartbeat as its rows tell it: the latest slot that beat, the day's spend, whether its session exists. */
export interface HeartbeatRecord {
  agentId: string;
  lastRun: { dueAt: string; status: JobRun['status']; error: string | null; finishedAt: string | null } | null;
  tokensToday: number;
  hasSession: boolean;
}

/**
 * Heartbeats as rows: one `kind = 'heartbeat'` job per agent (never listed or claimed as a job) and
 * one job_runs row per interval slot. The unique (job, due time) pair makes a slot beat once across
 * restarts and gateways, and the day's spend is read back from these rows, not kept in memory.
 */
@Injectable()
export class HeartbeatRepository {
  constructor(
    private readonly db: DatabaseService,
    private readonly jobs: ScheduledJobRepository,
  ) {}

  /** Creates or refreshes the agent's heartbeat job (its chat may have changed in config). */
  async ensureJob(agentId: string, deliverTo: DeliveryTarget | undefined): Promise<string> {
    const id = heartbeatJobId(agentId);
    await this.db.query(
      `INSERT INTO scheduled_jobs (id, agent_id, session_id, schedule, message, deliver_to, enabled, kind)
       VALUES ($1, $2, $3, '{"heartbeat": true}', 'HEARTBEAT.md', $4, false, 'heartbeat')
       ON CONFLICT (id) DO UPDATE SET deliver_to = EXCLUDED.deliver_to`,
      [id, agentId, `heartbeat:${agentId}`, deliverTo ? JSON.stringify(deliverTo) : null],
    );
    return id;
  }

  /** Claims the heartbeat of one interval slot; undefined when this slot already beat (here or in another process). */
  async claimSlot(jobId: string, slot: Date, now: Date): Promise<string | undefined> {
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO job_runs (job_id, due_at, status, started_at, session_id)
       SELECT $1, $2, 'running', $3, session_id FROM scheduled_jobs WHERE id = $1
       ON CONFLICT (job_id, due_at) DO NOTHING RETURNING id::text`,
      [jobId, slot, now],
    );
    return rows[0]?.id;
  }

  /** Tokens (in + out) the agent's heartbeats spent since `since` (the start of the day). */
  async tokensSince(jobId: string, since: Date): Promise<number> {
    const { rows } = await this.db.query<{ tokens: string }>(
      `SELECT coalesce(sum(input_tokens + output_tokens), 0)::text AS tokens FROM job_runs WHERE job_id = $1 AND started_at >= $2`,
      [jobId, since],
    );
    return Number(rows[0].tokens);
  }

  /** Records a heartbeat's end; an answer to deliver is kept with its first delivery lease (as for jobs). */
  async finish(
    runId: string,
    r: { status: 'ok' | 'error'; turnId?: string; error?: string; tokens: { input: number; output: number }; costUsd: number },
    output: { text: string; leaseUntil: Date } | undefined,
    at: Date,
  ): Promise<void> {
    const usage = { inputTokens: r.tokens.input, outputTokens: r.tokens.output, costUsd: r.costUsd };
    await this.jobs.finishRun(runId, { ...r, usage, output: output?.text, deliveryLeaseUntil: output?.leaseUntil }, at);
  }

  /** For each agent, its heartbeat's latest run, tokens since `dayStart` and whether session `heartbeat:<agent>` exists: one query for the page. */
  async findRecords(agentIds: string[], dayStart: Date): Promise<HeartbeatRecord[]> {
    const { rows } = await this.db.query<{
      agentId: string;
      dueAt: string | null;
      status: JobRun['status'] | null;
      error: string | null;
      finishedAt: string | null;
      tokens: string;
      hasSession: boolean;
    }>(
      `SELECT a.agent_id AS "agentId", r.due_at AS "dueAt", r.status, r.error, r.finished_at AS "finishedAt",
              coalesce(t.tokens, 0)::text AS tokens,
              EXISTS (SELECT 1 FROM sessions s WHERE s.id = 'heartbeat:' || a.agent_id) AS "hasSession"
         FROM unnest($1::text[], $2::uuid[]) AS a(agent_id, job_id)
         LEFT JOIN LATERAL (SELECT due_at, status, error, finished_at FROM job_runs WHERE job_id = a.job_id ORDER BY due_at DESC LIMIT 1) r ON true
         LEFT JOIN LATERAL (SELECT sum(input_tokens + output_tokens) AS tokens FROM job_runs WHERE job_id = a.job_id AND started_at >= $3) t ON true`,
      [agentIds, agentIds.map(heartbeatJobId), dayStart],
    );
    return rows.map((r) => ({
      agentId: r.agentId,
      lastRun: r.dueAt && r.status ? { dueAt: r.dueAt, status: r.status, error: r.error, finishedAt: r.finishedAt } : null,
      tokensToday: Number(r.tokens),
      hasSession: r.hasSession,
    }));
  }
}
