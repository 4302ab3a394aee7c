import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DatabaseService, Prisma, viaPrisma } from '@nestclaw/db';
import type { DeliveryTarget } from './job-output.port';
import { JobState, jobState } from './job-state';
import { MAX_DELIVERY_ATTEMPTS } from './job-output.repository';
import type { Schedule } from './schedule';

export interface ScheduledJob {
  id: string;
  agentId: string;
  ownerId: string | null;
  sessionId: string | null;
  schedule: Schedule;
  message: string;
  /** The chat its answers go to (the one it was made in), or null. */
  deliverTo: DeliveryTarget | null;
  enabled: boolean;
  nextRunAt: string | null;
  lastRunAt: string | null;
  createdAt: string;
}

/** A job as listed for people: with how its latest run went (null: it never ran). */
export interface ListedJob extends ScheduledJob {
  state: JobState;
  lastRun: { dueAt: string; status: JobRun['status']; error: string | null } | null;
}

export interface JobRun {
  id: string;
  jobId: string;
  dueAt: string;
  status: 'running' | 'ok' | 'error' | 'missed' | 'interrupted';
  sessionId: string | null;
  error: string | null;
}

/** A due job this process claimed: run it (status running) or it was recorded as missed. */
export interface ClaimedRun {
  job: ScheduledJob;
  runId: string;
  dueAt: Date;
  missed: boolean;
}

const JOB_COLS = `id::text, agent_id AS "agentId", owner_id AS "ownerId", session_id AS "sessionId", schedule, message,
  deliver_to AS "deliverTo", enabled,
  next_run_at AS "nextRunAt", last_run_at AS "lastRunAt", created_at AS "createdAt"`;

/** A job id as PostgreSQL prints a uuid; anything else names no job (the query is not even made). */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type JobRecord = Prisma.ScheduledJobGetPayload<object>;

/** The shape JOB_COLS gives (same keys, same order, timestamps as Dates), from a Prisma row. */
const toJob = (r: JobRecord): ScheduledJob =>
  ({
    id: r.id,
    agentId: r.agentId,
    ownerId: r.ownerId,
    sessionId: r.sessionId,
    schedule: r.schedule,
    message: r.message,
    deliverTo: r.deliverTo,
    enabled: r.enabled,
    nextRunAt: r.nextRunAt,
    lastRunAt: r.lastRunAt,
    createdAt: r.createdAt,
  }) as unknown as ScheduledJob;

/** Jobs visible to `ownerId` (undefined: the owner, who sees all), as a Prisma filter. */
const visibleTo = (ownerId: string | undefined) => ({ kind: 'job', ...(ownerId === undefined ? {} : { ownerId }) });

/**
 * Scheduled jobs and their runs. People's CRUD (list, find, remove, run now, runs) goes through
 * Prisma; raw pg stays where Prisma cannot go or the scheduler's loop runs: the capped insert (an
 * advisory lock), the wake-up time, the claim of due jobs (FOR UPDATE SKIP LOCKED, ON CONFLICT) and
 * the end of a run.
 */
@Injectable()
export class ScheduledJobRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Inserts the job unless its owner already holds `cap` jobs (then undefined). The owner's lock
   * makes count-then-insert exact when many adds race (1,000 parallel POSTs stop at the cap).
   */
  async insertWithinCap(job: Omit<ScheduledJob, 'lastRunAt' | 'createdAt' | 'enabled'>, cap: number): Promise<ScheduledJob | undefined> {
    return this.db.transaction(async (client) => {
      await this.db.query(`SELECT pg_advisory_xact_lock(hashtext('scheduled_jobs:' || coalesce($1, '(owner)')))`, [job.ownerId], {
        client,
      });
      const { rows: held } = await this.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM scheduled_jobs WHERE kind = 'job' AND owner_id IS NOT DISTINCT FROM $1`,
        [job.ownerId],
        { client },
      );
      if (held[0].n >= cap) return undefined;
      const { rows } = await this.db.query<ScheduledJob>(
        `INSERT INTO scheduled_jobs (id, agent_id, owner_id, session_id, schedule, message, next_run_at, deliver_to)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${JOB_COLS}`,
        [
          job.id,
          job.agentId,
          job.ownerId,
          job.sessionId,
          JSON.stringify(job.schedule),
          job.message,
          job.nextRunAt,
          job.deliverTo ? JSON.stringify(job.deliverTo) : null,
        ],
        { client },
      );
      return rows[0];
    });
  }

  /** Jobs visible to `ownerId` (undefined: the owner, who sees all), each with its latest run. */
  async listVisibleTo(ownerId: string | undefined): Promise<ListedJob[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.scheduledJob.findMany({
        where: visibleTo(ownerId),
        orderBy: { createdAt: 'asc' },
        include: { runs: { orderBy: { dueAt: 'desc' }, take: 1, select: { dueAt: true, status: true, error: true } } },
      }),
    );
    return rows.map(({ runs, ...r }) => ({
      ...toJob(r),
      state: jobState(r),
      lastRun: runs[0]
        ? { dueAt: runs[0].dueAt as unknown as string, status: runs[0].status as JobRun['status'], error: runs[0].error }
        : null,
    }));
  }

  /**
   * Pauses a job that still has a next run: the claim skips it (`enabled` false) and its next due
   * time is kept, which is what tells a paused job from a finished one (no next run). The row lock
   * of a claim under way makes this wait for it, so a pause never loses to a claim that read before it.
   */
  async pause(id: string, ownerId: string | undefined): Promise<boolean> {
    if (!JOB_ID.test(id)) return false;
    const { count } = await viaPrisma(() =>
      this.db.prisma.scheduledJob.updateMany({
        where: { id, ...visibleTo(ownerId), enabled: true, nextRunAt: { not: null } },
        data: { enabled: false },
      }),
    );
    return count > 0;
  }

  /** Resumes a paused job at `nextRunAt` (computed by the caller from its schedule). */
  async resume(id: string, ownerId: string | undefined, nextRunAt: Date): Promise<boolean> {
    if (!JOB_ID.test(id)) return false;
    const { count } = await viaPrisma(() =>
      this.db.prisma.scheduledJob.updateMany({
        where: { id, ...visibleTo(ownerId), enabled: false, nextRunAt: { not: null } },
        data: { enabled: true, nextRunAt },
      }),
    );
    return count > 0;
  }

  async findVisible(id: string, ownerId: string | undefined): Promise<ScheduledJob | undefined> {
    if (!JOB_ID.test(id)) return undefined;
    const row = await viaPrisma(() => this.db.prisma.scheduledJob.findFirst({ where: { id, ...visibleTo(ownerId) } }));
    return row ? toJob(row) : undefined;
  }

  async deleteVisible(id: string, ownerId: string | undefined): Promise<boolean> {
    if (!JOB_ID.test(id)) return false;
    const { count } = await viaPrisma(() => this.db.prisma.scheduledJob.deleteMany({ where: { id, ...visibleTo(ownerId) } }));
    return count > 0;
  }

  /** Jobs that run in a session (what the agent's cron tool may see and remove from inside it). */
  async listBySession(sessionId: string): Promise<ScheduledJob[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.scheduledJob.findMany({ where: { kind: 'job', sessionId }, orderBy: { createdAt: 'asc' } }),
    );
    return rows.map(toJob);
  }

  async deleteInSession(id: string, sessionId: string): Promise<boolean> {
    if (!JOB_ID.test(id)) return false;
    const { count } = await viaPrisma(() => this.db.prisma.scheduledJob.deleteMany({ where: { id, kind: 'job', sessionId } }));
    return count > 0;
  }

  /** The paired token that owns a session (null: the owner or a channel). */
  async sessionPrincipal(sessionId: string): Promise<string | null> {
    const row = await viaPrisma(() => this.db.prisma.session.findUnique({ where: { id: sessionId }, select: { principalId: true } }));
    return row?.principalId ?? null;
  }

  /** Makes a job due now (`nestclaw cron run`): the gateway's next tick runs it once. */
  async makeDue(id: string, now: Date): Promise<boolean> {
    if (!JOB_ID.test(id)) return false;
    const { count } = await viaPrisma(() =>
      this.db.prisma.scheduledJob.updateMany({ where: { id, kind: 'job' }, data: { nextRunAt: now, enabled: true } }),
    );
    return count > 0;
  }

  /** A job's runs, oldest first; with `newest`, only that many of the latest. */
  async runsOf(jobId: string, newest?: number): Promise<JobRun[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.jobRun.findMany({
        where: { jobId },
        orderBy: { dueAt: newest === undefined ? 'asc' : 'desc' },
        take: newest,
        select: { id: true, jobId: true, dueAt: true, status: true, sessionId: true, error: true },
      }),
    );
    if (newest !== undefined) rows.reverse();
    return rows.map((r) => ({ ...r, id: String(r.id), dueAt: r.dueAt as unknown as string, status: r.status as JobRun['status'] }));
  }

  /**
   * When the scheduler should look next: the earliest due time of an enabled job, or of an answer's
   * delivery retry (its lease running out). One statement on indexed columns, once per look.
   */
  async nextWakeAt(): Promise<Date | undefined> {
    const { rows } = await this.db.query<{ at: Date | null }>(
      `SELECT least((SELECT min(next_run_at) FROM scheduled_jobs WHERE kind = 'job' AND enabled),
                    (SELECT min(delivery_due_at) FROM job_runs
                      WHERE delivered_at IS NULL AND output IS NOT NULL AND delivery_attempts < $1)) AS at`,
      [MAX_DELIVERY_ATTEMPTS],
      { name: 'scheduler.next_wake' },
    );
    return rows[0]?.at ?? undefined;
  }

  /**
   * Claims due jobs in one transaction: locks them (SKIP LOCKED: another gateway takes the others),
   * records one run per job for its due time (missed when later than `graceMs`), and moves each
   * job to its next due time from `next`. The unique (job, due time) pair makes a second claim of
   * the same due time impossible even across restarts.
   */
  async claimDue(
    now: Date,
    graceMs: number,
    limit: number,
    next: (job: ScheduledJob, now: Date) => Date | undefined,
  ): Promise<ClaimedRun[]> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<ScheduledJob>(
        `SELECT ${JOB_COLS} FROM scheduled_jobs WHERE kind = 'job' AND enabled AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now, limit],
      );
      const claimed: ClaimedRun[] = [];
      for (const job of rows) claimed.push(...(await this.claimOne(client, job, now, graceMs, next)));
      return claimed;
    });
  }

  private async claimOne(
    client: PoolClient,
    job: ScheduledJob,
    now: Date,
    graceMs: number,
    next: (job: ScheduledJob, now: Date) => Date | undefined,
  ): Promise<ClaimedRun[]> {
    const dueAt = new Date(job.nextRunAt!);
    const missed = now.getTime() - dueAt.getTime() > graceMs;
    const following = next(job, now);
    await client.query(`UPDATE scheduled_jobs SET next_run_at = $2, enabled = $3, last_run_at = $4 WHERE id = $1`, [
      job.id,
      following ?? null,
      !!following,
      missed ? job.lastRunAt : now,
    ]);
    const run = await client.query<{ id: string }>(
      `INSERT INTO job_runs (job_id, due_at, status, started_at, finished_at, session_id)
       VALUES ($1, $2, $3, $4, CASE WHEN $3 = 'missed' THEN $4::timestamptz END, $5)
       ON CONFLICT (job_id, due_at) DO NOTHING RETURNING id::text`,
      [job.id, dueAt, missed ? 'missed' : 'running', now, job.sessionId ?? `cron:${job.id}`],
    );
    return run.rows[0] ? [{ job, runId: run.rows[0].id, dueAt, missed }] : [];
  }

  /**
   * Records how a run ended. An `output` to deliver is kept on the run with its first delivery
   * attempt leased until `deliveryLeaseUntil`: if the process dies before the send is recorded,
   * any gateway retries it after that (JobOutputRepository.claimPending).
   */
  async finishRun(
    runId: string,
    r: {
      status: 'ok' | 'error';
      turnId?: string;
      error?: string;
      usage?: { inputTokens: number; outputTokens: number; costUsd: number };
      output?: string;
      deliveryLeaseUntil?: Date;
    },
    at: Date,
  ): Promise<void> {
    await this.db.query(
      `UPDATE job_runs SET status = $2, finished_at = $3, turn_id = $4, error = $5, input_tokens = $6, output_tokens = $7, cost_usd = $8,
         output = $9, delivery_due_at = $10, delivery_attempts = CASE WHEN $10::timestamptz IS NULL THEN 0 ELSE 1 END WHERE id = $1`,
      [
        runId,
        r.status,
        at,
        r.turnId ?? null,
        r.error ?? null,
        r.usage?.inputTokens ?? 0,
        r.usage?.outputTokens ?? 0,
        (r.usage?.costUsd ?? 0).toFixed(8),
        r.output ?? null,
        r.deliveryLeaseUntil ?? null,
      ],
    );
  }

  /** At start-up: runs left `running` by a crash are not rerun (their due time was claimed); mark them. */
  async interruptRunning(): Promise<number> {
    const { rowCount } = await this.db.query(`UPDATE job_runs SET status = 'interrupted', finished_at = now() WHERE status = 'running'`);
    return rowCount ?? 0;
  }
}
