import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import { turnOpened } from '@nestclaw/observability';
import { TurnMemory } from '@nestclaw/memory';
import type { Approval } from '@nestclaw/tool';
import { HookRegistry } from '@nestclaw/tool';
import type { TurnUsage } from '../agent.events';
import { AgentDirectory } from '../agent.directory';
import type { TurnInput, TurnOptions, TurnResult } from '../agent.types';
import { TurnRepository } from '../session/turn.repository';
import type { LinkedTurn } from '../session/session.types';
import { resumePoint } from './resume-point';
import type { StepTurn } from './tool-step.runner';
import { TurnLoop } from './turn.loop';
import { TurnStartBuilder } from './turn-start.builder';
import { InterruptedTurns } from './interrupted-turns';

/**
 * Runs one turn of a session (the caller queues it behind the session's earlier turns): a new
 * message, a retried inbound message, or a paused turn whose approval was decided. The user message
 * is committed before the model is called.
 */
@Injectable()
export class TurnRunner {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly sessions: TurnRepository,
    private readonly hooks: HookRegistry,
    private readonly memory: TurnMemory,
    private readonly starts: TurnStartBuilder,
    private readonly loop: TurnLoop,
    private readonly agents: AgentDirectory,
    private readonly interrupted: InterruptedTurns,
  ) {}

  async run(input: TurnInput & { sessionId: string; agentId: string }, agent: AgentConfig, options: TurnOptions): Promise<TurnResult> {
    const { sessionId } = input;
    if (options.signal?.aborted) throw new NestclawError('cancelled', 'The request was cancelled before it started');
    if (input.inboundKey && input.recovered) {
      const linked = await this.sessions.findByInbound(input.inboundKey);
      if (linked) return this.runLinked(linked, input, options);
    }
    const submitted = await this.hooks.userPromptSubmit({ sessionId, agentId: input.agentId, prompt: input.message });
    if (submitted.block) throw new NestclawError('forbidden', `The message was blocked: ${submitted.block}`);
    const message = submitted.prompt;
    const turnId = randomUUID();
    turnOpened(turnId);
    const opened = await this.sessions.openTurn({
      sessionId,
      turnId,
      agentId: input.agentId,
      content: message,
      channel: input.channel,
      endpointId: input.endpointId,
      create: !!input.createSession,
      historyLimit: agent.history_limit,
      principalId: input.principalId,
      inboundKey: input.inboundKey,
    });
    if (!opened) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist; omit sessionId to start a new one`);
    if (opened.created) await this.hooks.sessionStart({ sessionId, agentId: opened.agentId });
    // A session keeps the agent it was created with.
    const sessionAgent = opened.agentId === input.agentId ? agent : this.agents.get(opened.agentId);
    const personId = this.memory.personOf(input);
    const turn: StepTurn = {
      sessionId,
      turnId,
      agentId: opened.agentId,
      channel: input.channel,
      endpointId: input.endpointId,
      agent: sessionAgent,
      personId,
    };
    const canned = this.starts.trivialReply(sessionAgent, message);
    if (canned !== undefined) return this.loop.answerWithoutModel(turn, canned, options);
    const start = await this.starts.forMessage(turn, {
      message,
      history: opened.history,
      context: input.context,
      mode: input.promptMode,
      signal: options.signal,
      recall: true,
    });
    const result = await this.loop.run(start, options);
    if (!result.interrupted) {
      this.memory.rememberTurn({ person: personId, agentId: opened.agentId, sessionId, turnId, user: message, assistant: result.reply });
    }
    return result;
  }

  /** A retried inbound message: the stored answer if its turn finished, else the turn again in place of the unfinished one. */
  private async runLinked(linked: LinkedTurn, input: TurnInput, options: TurnOptions): Promise<TurnResult> {
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
