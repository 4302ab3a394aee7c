import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import { turnOpened } from '@nestclaw/observability';
import { HookRegistry } from '@nestclaw/tool';
import { AgentDirectory } from '../agent.directory';
import type { TurnInput } from '../agent.types';
import { TurnRepository } from '../session/turn.repository';
import type { StoredMessage, StoredSummary } from '../session/session.types';
import type { StepTurn } from './tool-step.runner';

/** A new turn, committed: the message as the hooks left it, and the history before it (the caller adds the person). */
export interface OpenedTurn {
  turn: StepTurn;
  message: string;
  history: StoredMessage[];
  /** The session's active compaction summaries, read by the opening statement. */
  summaries: StoredSummary[];
}

/**
 * Opens a new turn: runs the UserPromptSubmit hook, commits the user message (creating the session
 * when asked), runs the SessionStart hook for a new session and picks the session's agent.
 */
@Injectable()
export class TurnOpener {
  constructor(
    private readonly sessions: TurnRepository,
    private readonly hooks: HookRegistry,
    private readonly agents: AgentDirectory,
  ) {}

  async open(input: TurnInput & { sessionId: string; agentId: string }, agent: AgentConfig): Promise<OpenedTurn> {
    const { sessionId } = input;
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
    const turn: StepTurn = {
      sessionId,
      turnId,
      agentId: opened.agentId,
      channel: input.channel,
      endpointId: input.endpointId,
      agent: sessionAgent,
    };
    return { turn, message, history: opened.history, summaries: opened.summaries };
  }
}
