import { Injectable } from '@nestjs/common';

/** A chat a job's answers go to: the one it was made in (or the owner's default channel for heartbeats). */
export interface DeliveryTarget {
  channel: string;
  chatId: string;
  threadId?: string;
}

/** One run's answer, to be sent to its target exactly once. */
export interface JobOutput {
  runId: string;
  jobId: string;
  agentId: string;
  kind: 'job' | 'heartbeat' | 'webhook';
  target: DeliveryTarget;
  text: string;
}

/** What the channel lib provides for job output; the agent lib never imports it. */
export interface JobOutputSink {
  /** The chat a session belongs to (a channel session), so a job made in it answers there. */
  targetOf(sessionId: string): Promise<DeliveryTarget | undefined>;
  /** Sends an answer; safe to call again for the same run (it edits or skips what was already sent). */
  deliver(output: JobOutput): Promise<void>;
}

/**
 * Where the scheduler hands answers to chats. The channel lib attaches its sink when it starts
 * (channel → agent is the allowed direction, so the agent lib only defines this port); a process
 * without channels (the CLI) attaches none and answers stay recorded on their runs. A holder rather
 * than an injection token: AgentModule is imported by the channel lib itself, so it cannot be given
 * a provider from there without a cycle.
 */
@Injectable()
export class JobOutputPort {
  private sink: JobOutputSink | undefined;

  attach(sink: JobOutputSink): void {
    this.sink = sink;
  }

  get attached(): JobOutputSink | undefined {
    return this.sink;
  }
}
