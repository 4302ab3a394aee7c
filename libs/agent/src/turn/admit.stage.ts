import { Injectable } from '@nestjs/common';
import { KeyedQueue } from '@nestclaw/common';
import { beginTurn, TurnRecording } from '@nestclaw/observability';
import type { Approval } from '@nestclaw/tool';
import { AgentDirectory } from '../agent.directory';
import type { TurnInput } from '../agent.types';
import { newSessionId } from '../session/session-key';
import type { AdmittedTurn } from './turn.types';

type AdmittedMessage = Extract<AdmittedTurn, { kind: 'message' }> & { telemetry: TurnRecording };

/**
 * Stage 1, admit: which agent runs the turn, whether it may (a model provider configured, budget
 * left), and its place in the session's lane: turns of one session run one at a time in arrival
 * order, different sessions in parallel. Refusals happen here, before anything is stored or queued.
 */
@Injectable()
export class AdmitStage {
  private readonly queue = new KeyedQueue();

  constructor(private readonly agents: AgentDirectory) {}

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

  /** Runs `task` behind the session's earlier turns (and `/compact` runs). */
  lane<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    return this.queue.run(sessionId, task);
  }
}
