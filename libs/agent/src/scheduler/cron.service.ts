import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { DatabaseNotifications } from '@nestclaw/db';
import { ownerOfPerson } from './job-owner';
import { JobState, jobState } from './job-state';
import { DeliveryTarget, JobOutputPort } from './job-output.port';
import { nextDue, parseSchedule } from './schedule';
import { JobRun, ListedJob, ScheduledJob, ScheduledJobRepository } from './scheduled-job.repository';
import { SchedulerClock } from './scheduler.clock';
import { SUBAGENT_CHANNEL } from '../turn/turn.types';

/** Turns nobody typed: a scheduled job's, the heartbeat's and a subagent's. */
const AUTOMATIC_CHANNELS = new Set(['cron', 'heartbeat', SUBAGENT_CHANNEL]);

/** A job with what it is doing (active, paused, finished). */
export type StatedJob = ScheduledJob & { state: JobState };

export interface NewJob {
  schedule: unknown;
  message: string;
  agentId?: string;
  sessionId?: string;
}

/**
 * Jobs as people manage them (HTTP API, CLI, the agent's cron tool). `ownerId` is the paired
 * token acting; undefined is the owner, who sees and changes every job.
 */
@Injectable()
export class CronService {
  constructor(
    private readonly config: ConfigService,
    private readonly jobs: ScheduledJobRepository,
    private readonly clock: SchedulerClock,
    private readonly outputs: JobOutputPort,
    /** Wakes this process's scheduler after a write (the trigger's NOTIFY wakes the other gateways). */
    private readonly notifications: DatabaseNotifications,
  ) {}

  /** `deliverTo`: the chat the job was made in, where its answers go. */
  async add(input: NewJob, ownerId: string | undefined, deliverTo?: DeliveryTarget): Promise<ScheduledJob> {
    const now = this.clock.now();
    const schedule = parseSchedule(input.schedule, now);
    const agentId = input.agentId ?? 'default';
    if (!this.config.get().agents[agentId]) throw new NestclawError('invalid_request', `Unknown agentId "${agentId}"`);
    const message = input.message.trim();
    if (!message || message.length > 4000) throw new NestclawError('invalid_request', 'message must be 1 to 4,000 characters');
    const ownerIdOrNull = ownerId ?? null;
    const s = this.config.get().scheduler;
    const cap = ownerIdOrNull === null ? s.max_jobs_for_owner : s.max_jobs_per_owner;
    const job = await this.jobs.insertWithinCap(
      {
        id: randomUUID(),
        agentId,
        ownerId: ownerIdOrNull,
        sessionId: input.sessionId ?? null,
        schedule,
        message,
        deliverTo: deliverTo ?? null,
        nextRunAt: nextDue(schedule, now, now)!.toISOString(),
      },
      cap,
    );
    if (!job)
      throw new NestclawError(
        'job_limit_reached',
        `You already have ${cap} scheduled jobs (the most allowed, scheduler.${ownerIdOrNull === null ? 'max_jobs_for_owner' : 'max_jobs_per_owner'}): remove one first`,
      );
    this.notifications.signal('scheduled_jobs');
    return job;
  }

  /**
   * From the agent's cron tool: the job runs in the session it was made in, belongs to the person
   * whose turn it was (else to whoever owns the session) and answers in that session's chat, if any.
   * A turn nobody typed (`channel` cron, heartbeat or subagent) may not add jobs unless configured:
   * a job whose turn adds a job would copy itself every interval.
   */
  async addFromSession(
    from: { sessionId: string; agentId: string; personId?: string; channel?: string },
    schedule: unknown,
    message: string,
  ): Promise<ScheduledJob> {
    if (from.channel && AUTOMATIC_CHANNELS.has(from.channel) && !this.config.get().scheduler.automatic_turns_add_jobs)
      throw new NestclawError(
        'forbidden',
        `a ${from.channel} turn cannot add scheduled jobs (scheduler.automatic_turns_add_jobs is off); only a person's message can`,
      );
    const { sessionId, agentId, personId } = from;
    const owner = personId ? ownerOfPerson(personId) : ((await this.jobs.sessionPrincipal(sessionId)) ?? undefined);
    const deliverTo = await this.outputs.attached?.targetOf(sessionId);
    return this.add({ schedule, message, agentId, sessionId }, owner, deliverTo);
  }

  listInSession(sessionId: string): Promise<ScheduledJob[]> {
    return this.jobs.listBySession(sessionId);
  }

  async removeInSession(id: string, sessionId: string): Promise<void> {
    if (!(await this.jobs.deleteInSession(id, sessionId)))
      throw new NestclawError('not_found', `No scheduled job "${id}" in this conversation`);
  }

  list(ownerId: string | undefined): Promise<ListedJob[]> {
    return this.jobs.listVisibleTo(ownerId);
  }

  async remove(id: string, ownerId: string | undefined): Promise<void> {
    // Someone else's job answers like a missing one: ids of other people's jobs are not confirmed.
    if (!(await this.jobs.deleteVisible(id, ownerId))) throw new NestclawError('not_found', `No scheduled job "${id}"`);
  }

  /**
   * Runs a job at the scheduler's next tick (its regular schedule continues after). A paused job is
   * refused: running it would also resume it (the claim sets its next run), which nobody asked for.
   */
  async runNow(id: string, ownerId: string | undefined): Promise<void> {
    const job = await this.visible(id, ownerId);
    if (jobState(job) === 'paused') throw new NestclawError('conflict', `Scheduled job "${id}" is paused: resume it first`);
    await this.jobs.makeDue(id, this.clock.now());
    this.notifications.signal('scheduled_jobs');
  }

  /** Stops a job's runs until resumed; pausing a paused job changes nothing. */
  async pause(id: string, ownerId: string | undefined): Promise<StatedJob> {
    if (!(await this.jobs.pause(id, ownerId))) {
      const job = await this.visible(id, ownerId);
      if (jobState(job) === 'finished')
        throw new NestclawError('conflict', `Scheduled job "${id}" has finished: it has no next run to pause`);
    }
    const after = await this.visible(id, ownerId);
    return { ...after, state: jobState(after) };
  }

  /**
   * Resumes a paused job at its next due time from now: a time still ahead is kept, one that passed
   * while paused is skipped (not run late), an interval keeps its phase. A one-time job whose time
   * passed while paused has nothing left to run: 409, remove it or run it now.
   */
  async resume(id: string, ownerId: string | undefined): Promise<StatedJob> {
    const job = await this.visible(id, ownerId);
    const state = jobState(job);
    if (state === 'active') return { ...job, state };
    if (state === 'finished') throw new NestclawError('conflict', `Scheduled job "${id}" has finished: it has no next run to resume`);
    const now = this.clock.now();
    const kept = new Date(job.nextRunAt!);
    const next = kept > now ? kept : nextDue(job.schedule, now, kept);
    if (!next)
      throw new NestclawError(
        'conflict',
        `Scheduled job "${id}" was due once, at ${job.nextRunAt}, while paused: nothing is left to resume`,
      );
    if (await this.jobs.resume(id, ownerId, next)) this.notifications.signal('scheduled_jobs');
    const after = await this.visible(id, ownerId);
    return { ...after, state: jobState(after) };
  }

  /** `newest`: only the latest runs (still oldest first). */
  async runs(id: string, ownerId: string | undefined, newest?: number): Promise<JobRun[]> {
    await this.visible(id, ownerId);
    return this.jobs.runsOf(id, newest);
  }

  /** Someone else's job answers like a missing one: ids of other people's jobs are not confirmed. */
  private async visible(id: string, ownerId: string | undefined): Promise<ScheduledJob> {
    const job = await this.jobs.findVisible(id, ownerId);
    if (!job) throw new NestclawError('not_found', `No scheduled job "${id}"`);
    return job;
  }
}
