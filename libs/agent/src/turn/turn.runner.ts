import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import { TurnMemory } from '@nestclaw/memory';
import type { Approval } from '@nestclaw/tool';
import type { TurnInput, TurnOptions, TurnResult } from '../agent.types';
import { TurnRepository } from '../session/turn.repository';
import type { StepTurn } from './tool-step.runner';
import { TurnLoop } from './turn.loop';
import { TurnStartBuilder } from './turn-start.builder';
import { TurnOpener } from './turn.opener';
import { ResumedTurns } from './resumed-turns';

/**
 * Runs one turn of a session (the caller queues it behind the session's earlier turns): a new
 * message, a retried inbound message, or a paused turn whose approval was decided. The user message
 * is committed before the model is called.
 */
@Injectable()
export class TurnRunner {
  constructor(
    private readonly sessions: TurnRepository,
    private readonly opener: TurnOpener,
    private readonly resumed: ResumedTurns,
    private readonly memory: TurnMemory,
    private readonly starts: TurnStartBuilder,
    private readonly loop: TurnLoop,
  ) {}

  async run(input: TurnInput & { sessionId: string; agentId: string }, agent: AgentConfig, options: TurnOptions): Promise<TurnResult> {
    const { sessionId } = input;
    if (options.signal?.aborted) throw new NestclawError('cancelled', 'The request was cancelled before it started');
    if (input.inboundKey && input.recovered) {
      const linked = await this.sessions.findByInbound(input.inboundKey);
      if (linked) return this.resumed.runLinked(linked, input, options);
    }
    const opened = await this.opener.open(input, agent);
    const { message, history, summaries } = opened;
    const personId = this.memory.personOf(input);
    const turn: StepTurn = { ...opened.turn, personId };
    const canned = this.starts.trivialReply(turn.agent, message);
    if (canned !== undefined) return this.loop.answerWithoutModel(turn, canned, options);
    const start = await this.starts.forMessage(turn, {
      message,
      history,
      summaries,
      context: input.context,
      mode: input.promptMode,
      signal: options.signal,
      recall: true,
    });
    const result = await this.loop.run(start, options);
    if (!result.interrupted) {
      this.memory.rememberTurn({
        person: personId,
        agentId: turn.agentId,
        sessionId,
        turnId: turn.turnId,
        user: message,
        assistant: result.reply,
      });
    }
    return result;
  }

  /** Continues a paused turn from the database once its approval is decided. */
  resume(a: Approval): Promise<void> {
    return this.resumed.resume(a);
  }
}
