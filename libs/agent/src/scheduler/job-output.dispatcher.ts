import { Injectable, Logger } from '@nestjs/common';
import { JobOutput, JobOutputPort } from './job-output.port';
import { JobOutputRepository, MAX_DELIVERY_ATTEMPTS } from './job-output.repository';
import { SchedulerClock } from './scheduler.clock';

/** How long a delivery attempt owns an answer before another tick (of any gateway) may retry it. */
export const DELIVERY_LEASE_MS = 60_000;

/**
 * Hands finished runs' answers to the attached sink (the channel lib) and records that they were
 * delivered. The answer and its lease were written with the run (ScheduledJobRepository.finishRun),
 * so a crash or a failed send before `markDelivered` is retried by `retryPending` on a later tick;
 * the sink's own outbound record keeps that retry from sending a second copy.
 */
@Injectable()
export class JobOutputDispatcher {
  private readonly logger = new Logger('Scheduler');

  constructor(
    private readonly port: JobOutputPort,
    private readonly outputs: JobOutputRepository,
    private readonly clock: SchedulerClock,
  ) {}

  leaseUntil(): Date {
    return new Date(this.clock.now().getTime() + DELIVERY_LEASE_MS);
  }

  async deliver(output: JobOutput, attempt = 1): Promise<void> {
    const sink = this.port.attached;
    if (!sink) return; // no channels in this process: the answer waits on its run for one that has them
    try {
      await sink.deliver(output);
      await this.outputs.markDelivered(output.runId, this.clock.now());
    } catch (e) {
      const last = attempt >= MAX_DELIVERY_ATTEMPTS;
      this.logger.warn(
        `delivering the answer of ${output.kind} run ${output.runId} to ${output.target.channel} chat ${output.target.chatId} failed` +
          ` (attempt ${attempt} of ${MAX_DELIVERY_ATTEMPTS}${last ? ', giving up' : ''}): ${(e as Error).message}`,
      );
      if (!last) await this.outputs.retryAt(output.runId, this.leaseUntil()).catch(() => undefined);
    }
  }

  /** Retries answers left undelivered by a crash or a failed send. */
  async retryPending(): Promise<void> {
    if (!this.port.attached) return;
    const pending = await this.outputs.claimPending(this.clock.now(), this.leaseUntil(), 20);
    for (const p of pending) await this.deliver(p, p.attempts);
  }
}
