import { Injectable } from '@nestjs/common';
import type { AgentConfig } from '@nestclaw/config';
import { TurnMemory } from '@nestclaw/memory';
import type { ChatMessage, LlmCallRecord } from '@nestclaw/provider';
import type { PromptMode } from '../prompt/system-prompt.builder';
import { TurnRepository } from '../session/turn.repository';
import type { StoredMessage, StoredSummary } from '../session/session.types';
import type { ResumePoint } from './resume-point';
import type { LoopStart } from './turn.loop';
import type { StepTurn } from './tool-step.runner';
import { TurnContextRequest, TurnContextService } from './turn-context.service';

export interface MessageStart {
  /** The user message the turn answers. */
  message: string;
  history: StoredMessage[];
  /** The active summaries when the opening statement read them (else fitting reads them). */
  summaries?: StoredSummary[];
  /** Client-supplied earlier conversation (stateless OpenAI-style calls). */
  context?: ChatMessage[];
  mode?: PromptMode;
  signal?: AbortSignal;
  /** Add the person's recalled memories to the prompt (a new turn; a re-run turn goes without). */
  recall?: boolean;
}

/**
 * Prepares where a turn's model loop starts, the same way for a new turn, a turn run again after a
 * restart and a turn resumed after an approval: layered prompt, summaries and history fitted into the
 * window, and the summarisation calls that took recorded with the turn.
 */
@Injectable()
export class TurnStartBuilder {
  constructor(
    private readonly context: TurnContextService,
    private readonly sessions: TurnRepository,
    private readonly memory: TurnMemory,
  ) {}

  /** A template reply when the agent answers greetings and thanks without the model. */
  trivialReply(agent: AgentConfig, message: string): string | undefined {
    return this.context.trivialReply(agent, message);
  }

  /** A turn answering `start.message`, from its first model call. */
  async forMessage(turn: StepTurn, start: MessageStart): Promise<LoopStart> {
    const ctx = await this.context.prepare({
      ...this.request(turn, start.message, start.history),
      summaries: start.summaries,
      context: start.context,
      mode: start.mode,
      signal: start.signal,
    });
    if (start.recall) {
      // Recalled memories: their own system message after the layered prompt (bounded in time, never throws).
      const recalled = await this.memory.recallForTurn({
        person: turn.personId,
        agentId: turn.agentId,
        message: start.message,
        history: start.history,
      });
      if (recalled) {
        ctx.messages.splice(1, 0, { role: 'system', content: recalled });
        ctx.turnStart += 1;
      }
    }
    await this.recordCalls(turn, ctx.calls);
    return { turn, messages: ctx.messages, iteration: 1, context: ctx };
  }

  /**
   * A paused turn after its approval: the same layered prompt and summaries the turn started with, in
   * place of the placeholder system message of `point`.
   */
  async forResume(turn: StepTurn, point: ResumePoint & { ok: true }, message: string, history: StoredMessage[]): Promise<LoopStart> {
    const prefix = await this.context.prefix(this.request(turn, message, history));
    point.messages.splice(0, 1, ...prefix.messages);
    await this.recordCalls(turn, prefix.calls);
    return { turn, messages: point.messages, iteration: point.iteration, pendingStep: point.step };
  }

  private request(turn: StepTurn, message: string, history: StoredMessage[]): TurnContextRequest {
    return {
      sessionId: turn.sessionId,
      agentId: turn.agentId,
      agent: turn.agent,
      channel: turn.channel,
      sender: turn.endpointId,
      message,
      history,
    };
  }

  private async recordCalls(turn: StepTurn, calls: LlmCallRecord[]): Promise<void> {
    if (calls.length) await this.sessions.recordProgress({ sessionId: turn.sessionId, turnId: turn.turnId, messages: [], calls });
  }
}
