import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import { TurnMemory } from '@nestclaw/memory';
import { turnOpened } from '@nestclaw/observability';
import { Approval, HookRegistry } from '@nestclaw/tool';
import { AgentDirectory } from '../agent.directory';
import type { TurnInput } from '../agent.types';
import { TurnRepository } from '../session/turn.repository';
import type { LinkedTurn } from '../session/session.types';
import { InterruptedTurns } from './interrupted-turns';
import { resumePoint } from './resume-point';
import { SessionHold } from './session-hold';
import { TurnLedger } from './turn-ledger';
import type { ActiveTurn, AdmittedTurn, OpenedTurn } from './turn.types';

const NO_USAGE = { inputTokens: 0, outputTokens: 0, costUsd: 0 } as const;

/**
 * Stage 2, open: the turn's row. A new message runs the UserPromptSubmit hook and is committed by
 * the opening statement (creating the session when asked; SessionStart for a new one). A retried
 * inbound message finds its earlier turn: its stored answer, a notice when running it again could
 * repeat something (InterruptedTurns), or the turn reopened in place. A decided approval loads its
 * paused turn. Every later read or write of the turn goes through its ledger or the close stage.
 */
@Injectable()
export class OpenStage {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly sessions: TurnRepository,
    private readonly hooks: HookRegistry,
    private readonly agents: AgentDirectory,
    private readonly interrupted: InterruptedTurns,
    private readonly memory: TurnMemory,
    private readonly hold: SessionHold,
  ) {}

  /** At start-up, through the session hold (which knows which turns another live replica runs). */
  async interruptLeftovers(): Promise<void> {
    const n = await this.hold.interruptLeftovers();
    if (n.turns > 0)
      this.logger.warn(`${n.turns} turn(s) and ${n.calls} model call(s) left open by an earlier crash were marked interrupted`);
  }

  async open(admitted: AdmittedTurn, signal?: AbortSignal): Promise<OpenedTurn> {
    if (admitted.kind === 'approval') return this.reopenPaused(admitted.approval, admitted.agent);
    const { input } = admitted;
    if (signal?.aborted) throw new NestclawError('cancelled', 'The request was cancelled before it started');
    if (input.inboundKey && input.recovered) {
      let linked = await this.sessions.findByInbound(input.inboundKey);
      // Unfinished: maybe still running on another replica. Once it holds the session, this replica reads it again.
      // (Only in its own session's lane, which releases the hold: routing that changed since maps it elsewhere.)
      if (linked && !(linked.status === 'ok' && linked.reply !== null) && linked.sessionId === input.sessionId) {
        await this.hold.takeFor(linked.sessionId, linked.turnId, signal);
        linked = (await this.sessions.findByInbound(input.inboundKey)) ?? linked;
      }
      if (linked) return this.reopenLinked(linked, input);
    }
    return this.openNew(input, admitted.agent, signal);
  }

  private async openNew(
    input: TurnInput & { sessionId: string; agentId: string },
    agent: AgentConfig,
    signal: AbortSignal | undefined,
  ): Promise<OpenedTurn> {
    const { sessionId } = input;
    const submitted = await this.hooks.userPromptSubmit({ sessionId, agentId: input.agentId, prompt: input.message });
    if (submitted.block) throw new NestclawError('forbidden', `The message was blocked: ${submitted.block}`);
    const message = submitted.prompt;
    const turnId = input.turnId ?? randomUUID();
    turnOpened(turnId);
    const personId = this.memory.personOf(input);
    // Recall's candidates come from the in-process index now; the opening statement reads them.
    const recall = this.memory.planRecall({ person: personId, agentId: input.agentId, message });
    // One statement when the session is free; busy on another replica, it waits here for its turn.
    const opened = await this.hold.take(
      sessionId,
      turnId,
      () =>
        this.sessions.openTurn({
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
          replica: this.hold.replica,
          recall,
        }),
      signal,
    );
    if (!opened) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist; omit sessionId to start a new one`);
    if (opened.created) await this.hooks.sessionStart({ sessionId, agentId: opened.agentId });
    const turn: ActiveTurn = {
      sessionId,
      turnId,
      // A session keeps the agent it was created with.
      agentId: opened.agentId,
      agent: opened.agentId === input.agentId ? agent : this.agents.get(opened.agentId),
      personId,
      channel: input.channel,
      endpointId: input.endpointId,
      ledger: new TurnLedger(this.sessions, sessionId, turnId),
    };
    return {
      kind: 'new',
      turn,
      message,
      history: opened.history,
      summaries: opened.summaries,
      input,
      ...(recall ? { recall: { plan: recall, rows: opened.recalled } } : {}),
    };
  }

  /** A retried inbound message: the stored answer if its turn finished, else the turn again in place of the unfinished one. */
  private async reopenLinked(linked: LinkedTurn, input: TurnInput): Promise<OpenedTurn> {
    const { sessionId, turnId } = linked;
    const replay = (reply: string): OpenedTurn => ({
      kind: 'replay',
      result: { sessionId, turnId, reply, usage: { ...NO_USAGE }, interrupted: false, replayed: true },
    });
    if (linked.status === 'ok' && linked.reply !== null) return replay(linked.reply);
    if (linked.status === 'error') throw new NestclawError('provider_error', 'An earlier attempt to answer this message failed');
    const recovery = await this.interrupted.recoveryFor(linked, input.interruptedTurns);
    if (recovery.kind === 'replay') return replay(recovery.notice);
    if (recovery.kind === 'notify') return { kind: 'notify', linked, input, notice: recovery.notice, why: recovery.why };
    const agent = this.agents.get(linked.agentId);
    this.logger.log(`turn ${turnId} was cut short by a restart; answering its message again`);
    const history = await this.sessions.reopenTurn(linked, agent.history_limit);
    const turn: ActiveTurn = {
      sessionId,
      turnId,
      agentId: linked.agentId,
      agent,
      channel: input.channel,
      endpointId: input.endpointId,
      ledger: new TurnLedger(this.sessions, sessionId, turnId),
    };
    return { kind: 'rerun', turn, message: linked.content, history, input };
  }

  /** A paused turn once its approval is decided, rebuilt from its rows (`resumePoint`). */
  private async reopenPaused(a: Approval, agent: AgentConfig): Promise<OpenedTurn> {
    await this.hold.takeFor(a.sessionId, a.turnId);
    const { history, turn: rows } = await this.sessions.loadTurn(a.sessionId, a.turnId, agent.history_limit);
    const point = resumePoint(a, '', [], rows);
    if (!point.ok) {
      this.logger.warn(`approval ${a.id} was decided but cannot resume: ${point.why}`);
      return { kind: 'stale' };
    }
    this.logger.log(`resuming turn ${a.turnId} after approval ${a.id} (${a.status})`);
    const turn: ActiveTurn = {
      sessionId: a.sessionId,
      turnId: a.turnId,
      agentId: a.agentId,
      agent,
      channel: a.channel,
      endpointId: a.endpointId ?? undefined,
      ledger: new TurnLedger(this.sessions, a.sessionId, a.turnId),
    };
    return { kind: 'resume', turn, message: rows[0]?.content ?? '', history, at: point };
  }
}
