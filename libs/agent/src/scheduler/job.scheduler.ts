import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { FailureThrottle } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { DatabaseNotifications } from '@nestclaw/db';
import { AgentService } from '../agent.service';
import { JobOutputDispatcher } from './job-output.dispatcher';
import { isTokenOwner } from './job-owner';
import { nextDue } from './schedule';
import { ClaimedRun, ScheduledJobRepository } from './scheduled-job.repository';
import { SchedulerClock } from './scheduler.clock';

/** Shortest wait between two looks armed by the due-time timer (a claim batch left due jobs behind). */
const MIN_WAIT_MS = 250;

/**
 * Runs due jobs. A wake-up only says "look now"; which process runs a due time is decided in
 * Postgres (ScheduledJobRepository.claimDue), so restarts and several gateways never run one twice.
 * It does not poll every second (issue 23): after each look it sleeps until the next due time (a
 * job's `next_run_at` or an answer's delivery retry), capped by `scheduler.tick` (the safety poll);
 * a job added or brought forward wakes it at once, in this process by `DatabaseNotifications.signal`
 * and in the others by the trigger's NOTIFY. A job missed while nothing was running runs once at
 * start-up within the grace period, otherwise it is recorded as missed.
 */
@Injectable()
export class JobScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Scheduler');
  private ticking: Promise<void> | undefined;
  private followUp: Promise<void> | undefined;
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  /** During a database outage: one line, a summary a minute, one on recovery; ticks spaced out meanwhile. */
  private readonly failures: FailureThrottle;

  constructor(
    private readonly config: ConfigService,
    private readonly jobs: ScheduledJobRepository,
    private readonly agent: AgentService,
    private readonly clock: SchedulerClock,
    private readonly notifications: DatabaseNotifications,
    private readonly outputs: JobOutputDispatcher,
  ) {
    this.failures = new FailureThrottle('looking for due jobs', this.logger, { baseDelayMs: config.get().scheduler.tick });
  }

  async onApplicationBootstrap(): Promise<void> {
    const s = this.config.get().scheduler;
    if (!s.enabled) return;
    const n = await this.jobs.interruptRunning();
    if (n) this.logger.warn(`${n} job run(s) cut short by an earlier stop were marked interrupted (not rerun)`);
    this.unsubscribe = this.notifications.on('scheduled_jobs', () => void this.tick());
    await this.tick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    await this.ticking;
    await this.followUp;
    await Promise.allSettled([...this.running]);
  }

  /**
   * Claims and starts what is due now, then sleeps until the next due time; one tick at a time per
   * process. A call during a tick gets one more tick after it: a wake-up (or a test that moved the
   * clock) must be answered by a look that started after it, not by one already under way.
   */
  tick(): Promise<void> {
    if (!this.failures.due()) return Promise.resolve();
    if (this.ticking)
      return (this.followUp ??= this.ticking.then(() => {
        this.followUp = undefined;
        return this.tick();
      }));
    this.ticking = this.claimAndStart()
      .then((nextAt) => this.sleepUntil(nextAt))
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Arms the one timer: at the next due time, never later than the safety poll, spaced out while failing. */
  private sleepUntil(nextAt: Date | undefined): void {
    if (this.stopped || !this.config.get().scheduler.enabled) return;
    const safety = this.config.get().scheduler.tick;
    let wait = nextAt ? Math.max(MIN_WAIT_MS, nextAt.getTime() - this.clock.now().getTime()) : safety;
    wait = this.failures.failing ? this.failures.retryInMs() : Math.min(wait, safety);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), wait);
  }

  /** Resolves when every run started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await this.ticking;
    await this.followUp;
    await Promise.allSettled([...this.running]);
  }

  /** Returns when to look next (the earliest due time left), or undefined for the safety poll. */
  private async claimAndStart(): Promise<Date | undefined> {
    const s = this.config.get().scheduler;
    let claimed: ClaimedRun[];
    let nextAt: Date | undefined;
    try {
      // An interval keeps the phase of the due time being claimed.
      claimed = await this.jobs.claimDue(this.clock.now(), s.grace, s.batch, (job, now) =>
        nextDue(job.schedule, now, new Date(job.nextRunAt!)),
      );
      nextAt = await this.jobs.nextWakeAt();
    } catch (e) {
      this.failures.failed(e);
      return undefined;
    }
    this.failures.succeeded();
    for (const c of claimed) {
      if (c.missed) {
        this.logger.warn(`job ${c.job.id} was due at ${c.dueAt.toISOString()}, more than the grace period ago: recorded as missed`);
        continue;
      }
      const p = this.run(c).finally(() => this.running.delete(p));
      this.running.add(p);
    }
    await this.outputs
      .retryPending()
      .catch((e: unknown) => this.logger.error(`retrying undelivered job answers failed: ${(e as Error).message}`));
    // A full batch may have left due jobs behind: look again soon.
    return claimed.length >= s.batch ? this.clock.now() : nextAt;
  }

  private async run(c: ClaimedRun): Promise<void> {
    const { job } = c;
    try {
      const r = await this.agent.run({
        message: job.message,
        sessionId: job.sessionId ?? `cron:${job.id}`,
        createSession: !job.sessionId,
        agentId: job.agentId,
        channel: 'cron',
        endpointId: job.id,
        // A job made in a chat belongs to that chat's person, not to an API token.
        principalId: job.ownerId && isTokenOwner(job.ownerId) ? job.ownerId : undefined,
      });
      const output = job.deliverTo && r.reply.trim() ? r.reply : undefined;
      const leaseUntil = output ? this.outputs.leaseUntil() : undefined;
      await this.jobs.finishRun(
        c.runId,
        { status: 'ok', turnId: r.turnId, usage: r.usage, output, deliveryLeaseUntil: leaseUntil },
        this.clock.now(),
      );
      if (output && job.deliverTo)
        await this.outputs.deliver({
          runId: c.runId,
          jobId: job.id,
          agentId: job.agentId,
          kind: 'job',
          target: job.deliverTo,
          text: output,
        });
    } catch (e) {
      this.logger.warn(`job ${job.id} (due ${c.dueAt.toISOString()}) failed: ${(e as Error).message}`);
      await this.jobs
        .finishRun(c.runId, { status: 'error', error: (e as Error).message }, this.clock.now())
        .catch((dbErr: unknown) => this.logger.error(`recording the run of job ${job.id} failed: ${(dbErr as Error).message}`));
    }
  }
}
