import { Injectable } from '@nestjs/common';
import { KeyedQueue } from '@nestclaw/common';
import { beginTurn, TurnRecording } from '@nestclaw/observability';
import type { Approval } from '@nestclaw/tool';
import { AgentDirectory } from '../agent.directory';
import type { TurnInput } from '../agent.types';
import { newSessionId } from '../session/session-key';
import { SessionHold } from './session-hold';
import type { AdmittedTurn } from './turn.types';

type AdmittedMessage = Extract<AdmittedTurn, { kind: 'message' }> & { telemetry: TurnRecording };

/**
 * Stage 1, admit: which agent runs the turn, whether it may (a model provider configured, budget
 * left), and its place in the session's lane: turns of one session run one at a time in arrival
 * order, different sessions in parallel. The lane orders this process's turns; across replicas the
 * turn holds the session row (SessionHold: taken when the turn opens, released when it closes, or
 * here when the lane moves on without a closing statement). Refusals happen here, before anything
 * is stored or queued.
 */
@Injectable()
export class AdmitStage {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly agents: AgentDirectory,
    private readonly hold: SessionHold,
  ) {}

  /** A new message: its agent (unknown, unconfigured or over budget: refused now) and session. */
  message(input: TurnInput): AdmittedMessage {
    const agentId = input.agentId ?? 'default';
    const agent = this.agents.runnable(agentId);
    const sessionId = input.sessionId ?? newSessionId();
    const createSession = input.createSession || !input.sessionId;
    // Begun before the lane, so the queue wait is measured.
    const telemetry = beginTurn({ agent: agentId, channel: input.channel, sessionId, input: input.message });
    return { kind: 'message', input: { ...input, sessionId, agentId, createSession }, agent, telemetry };
  }

  /** A paused turn whose approval was decided: it runs as the agent that paused it (no budget check: the turn was let in). */
  approval(a: Approval): AdmittedTurn {
    return { kind: 'approval', approval: a, agent: this.agents.get(a.agentId) };
  }

  /** Runs `task` behind the session's earlier turns (and `/compact` runs); no hold on the session outlives it. */
  lane<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    return this.queue.run(sessionId, async () => {
      try {
        return await task();
      } finally {
        await this.hold.releaseLeftover(sessionId);
      }
    });
  }
}
