import { Injectable, Logger } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import type { Approval } from '@nestclaw/tool';
import type { TurnUsage } from '../agent.events';
import { AgentDirectory } from '../agent.directory';
import type { TurnInput, TurnOptions, TurnResult } from '../agent.types';
import { TurnRepository } from '../session/turn.repository';
import type { LinkedTurn } from '../session/session.types';
import { InterruptedTurns } from './interrupted-turns';
import { resumePoint } from './resume-point';
import type { StepTurn } from './tool-step.runner';
import { TurnLoop } from './turn.loop';
import { TurnStartBuilder } from './turn-start.builder';

/**
 * Turns that already exist in the database and run again: a retried inbound message linked to an
 * earlier turn, and a paused turn whose approval was decided.
 */
@Injectable()
export class ResumedTurns {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly sessions: TurnRepository,
    private readonly starts: TurnStartBuilder,
    private readonly loop: TurnLoop,
    private readonly agents: AgentDirectory,
    private readonly interrupted: InterruptedTurns,
  ) {}

  /** A retried inbound message: the stored answer if its turn finished, else the turn again in place of the unfinished one. */
  async runLinked(linked: LinkedTurn, input: TurnInput, options: TurnOptions): Promise<TurnResult> {
    const { sessionId, turnId } = linked;
    const usage: TurnUsage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    if (linked.status === 'ok' && linked.reply !== null) {
      options.onEvent?.({ type: 'done', sessionId, turnId, reply: linked.reply, usage, interrupted: false });
      return { sessionId, turnId, reply: linked.reply, usage, interrupted: false, replayed: true };
    }
    if (linked.status === 'error') throw new NestclawError('provider_error', 'An earlier attempt to answer this message failed');
    const settled = await this.interrupted.settle(linked, input);
    if (settled) {
      options.onEvent?.({ type: 'done', sessionId, turnId, reply: settled.reply, usage, interrupted: false });
      return settled;
    }
    const agent = this.agents.get(linked.agentId);
    this.logger.log(`turn ${turnId} was cut short by a restart; answering its message again`);
    const history = await this.sessions.reopenTurn(linked, agent.history_limit);
    const turn: StepTurn = { sessionId, turnId, agentId: linked.agentId, channel: input.channel, endpointId: input.endpointId, agent };
    const start = await this.starts.forMessage(turn, {
      message: linked.content,
      history,
      context: input.context,
      mode: input.promptMode,
      signal: options.signal,
    });
    return this.loop.run(start, options);
  }

  /** Continues a paused turn from the database once its approval is decided. */
  async resume(a: Approval): Promise<void> {
    const agent = this.agents.get(a.agentId);
    const { history, turn } = await this.sessions.loadTurn(a.sessionId, a.turnId, agent.history_limit);
    const point = resumePoint(a, '', [], turn);
    if (!point.ok) {
      this.logger.warn(`approval ${a.id} was decided but cannot resume: ${point.why}`);
      return;
    }
    this.logger.log(`resuming turn ${a.turnId} after approval ${a.id} (${a.status})`);
    const stepTurn: StepTurn = {
      sessionId: a.sessionId,
      turnId: a.turnId,
      agentId: a.agentId,
      channel: a.channel,
      endpointId: a.endpointId ?? undefined,
      agent,
    };
    const start = await this.starts.forResume(stepTurn, point, turn[0]?.content ?? '', history);
    await this.loop.run(start, {});
  }
}
