import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { FailureThrottle } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { AgentService } from '../agent.service';
import { JobOutputDispatcher } from './job-output.dispatcher';
import { isTokenOwner } from './job-owner';
import { nextDue } from './schedule';
import { ClaimedRun, ScheduledJobRepository } from './scheduled-job.repository';
import { SchedulerClock } from './scheduler.clock';

const INTERVAL_NAME = 'nestclaw:scheduled-jobs';

/**
 * Runs due jobs. A @nestjs/schedule interval only says "look now"; which process runs a due time is
 * decided in Postgres (ScheduledJobRepository.claimDue), so restarts and several gateways never
 * run one twice. A job missed while nothing was running runs once at start-up within the grace
 * period, otherwise it is recorded as missed.
 */
@Injectable()
export class JobScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Scheduler');
  private ticking: Promise<void> | undefined;
  private readonly running = new Set<Promise<void>>();
  /** During a database outage: one line, a summary a minute, one on recovery; ticks spaced out meanwhile. */
  private readonly failures: FailureThrottle;

  constructor(
    private readonly config: ConfigService,
    private readonly jobs: ScheduledJobRepository,
    private readonly agent: AgentService,
    private readonly clock: SchedulerClock,
    private readonly registry: SchedulerRegistry,
    private readonly outputs: JobOutputDispatcher,
  ) {
    this.failures = new FailureThrottle('looking for due jobs', this.logger, { baseDelayMs: config.get().scheduler.tick });
  }

  async onApplicationBootstrap(): Promise<void> {
    const s = this.config.get().scheduler;
    if (!s.enabled) return;
    const n = await this.jobs.interruptRunning();
    if (n) this.logger.warn(`${n} job run(s) cut short by an earlier stop were marked interrupted (not rerun)`);
    await this.tick();
    this.registry.addInterval(
      INTERVAL_NAME,
      setInterval(() => void this.tick(), s.tick),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.registry.doesExist('interval', INTERVAL_NAME)) this.registry.deleteInterval(INTERVAL_NAME);
    await this.ticking;
    await Promise.allSettled([...this.running]);
  }

  /** Claims and starts what is due now; one tick at a time per process. */
  tick(): Promise<void> {
    if (!this.failures.due()) return Promise.resolve();
    this.ticking ??= this.claimAndStart().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Resolves when every run started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await this.ticking;
    await Promise.allSettled([...this.running]);
  }

  private async claimAndStart(): Promise<void> {
    const s = this.config.get().scheduler;
    let claimed: ClaimedRun[];
    try {
      // An interval keeps the phase of the due time being claimed.
      claimed = await this.jobs.claimDue(this.clock.now(), s.grace, s.batch, (job, now) =>
        nextDue(job.schedule, now, new Date(job.nextRunAt!)),
      );
    } catch (e) {
      this.failures.failed(e);
      return;
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
