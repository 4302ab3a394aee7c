import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AgentService } from '../agent.service';
import { JobOutputDispatcher } from '../scheduler/job-output.dispatcher';
import type { DeliveryTarget } from '../scheduler/job-output.port';
import { ScheduledJobRepository } from '../scheduler/scheduled-job.repository';
import { SchedulerClock } from '../scheduler/scheduler.clock';
import { webhookJobId } from './webhook.repository';

export interface WebhookTurn {
  hookId: string;
  runId: string;
  agentId: string;
  sessionId: string;
  turnId: string;
  message: string;
  deliverTo: DeliveryTarget | undefined;
}

/**
 * The accepted delivery's turn, run after the 202 went out: the answer is recorded on its job run
 * with a delivery lease, then handed to JobOutputDispatcher, so a failed send or a crash before the
 * send is retried by the scheduler's tick and the outbound record keeps it from arriving twice. A
 * turn cut short by a restart is marked interrupted at start-up and not rerun, as a job's is.
 */
@Injectable()
export class WebhookTurnRunner implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly agent: AgentService,
    private readonly runs: ScheduledJobRepository,
    private readonly outputs: JobOutputDispatcher,
    private readonly clock: SchedulerClock,
  ) {}

  start(t: WebhookTurn): void {
    const p = this.run(t).finally(() => this.running.delete(p));
    this.running.add(p);
  }

  /** Resolves when every turn started so far has finished and its answer was handed on (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.idle();
  }

  private async run(t: WebhookTurn): Promise<void> {
    try {
      const r = await this.agent.run({
        message: t.message,
        sessionId: t.sessionId,
        createSession: true,
        agentId: t.agentId,
        channel: 'webhook',
        endpointId: t.hookId,
        turnId: t.turnId,
      });
      const output = t.deliverTo && r.reply.trim() ? r.reply : undefined;
      const leaseUntil = output ? this.outputs.leaseUntil() : undefined;
      await this.runs.finishRun(
        t.runId,
        { status: 'ok', turnId: r.turnId, usage: r.usage, output, deliveryLeaseUntil: leaseUntil },
        this.clock.now(),
      );
      if (output && t.deliverTo)
        await this.outputs.deliver({
          runId: t.runId,
          jobId: webhookJobId(t.hookId),
          agentId: t.agentId,
          kind: 'webhook',
          target: t.deliverTo,
          text: output,
        });
    } catch (e) {
      this.logger.warn(`the turn of webhook ${t.hookId} (turn ${t.turnId}) failed: ${(e as Error).message}`);
      await this.runs
        .finishRun(t.runId, { status: 'error', error: (e as Error).message }, this.clock.now())
        .catch((dbErr: unknown) => this.logger.error(`recording the run of webhook ${t.hookId} failed: ${(dbErr as Error).message}`));
    }
  }
}
