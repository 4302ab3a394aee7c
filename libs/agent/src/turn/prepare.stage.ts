import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import { TurnMemory } from '@nestclaw/memory';
import type { ChatMessage } from '@nestclaw/provider';
import { ToolRegistry } from '@nestclaw/tool';
import { AgentDirectory } from '../agent.directory';
import { classifyTrivial } from '../classifier/trivial-message.classifier';
import { CompactionService, CompactReport, FitRequest } from '../compaction/compaction.service';
import { SystemPromptBuilder } from '../prompt/system-prompt.builder';
import { SessionHold } from './session-hold';
import type { OpenedTurn, PreparedTurn } from './turn.types';

/**
 * Stage 3, prepare: what the model sees, the same way for a new turn, a turn run again after a
 * restart and a turn resumed after an approval: the layered system prompt, the agent's tool
 * definitions, the history fitted into the model's window with the session's summaries (compacting
 * when needed; the request is built once and kept for a refit after a context-length refusal), and
 * a new message's recalled memories. A greeting or thanks the agent answers from templates needs none of it.
 */
@Injectable()
export class PrepareStage {
  constructor(
    private readonly prompts: SystemPromptBuilder,
    private readonly compaction: CompactionService,
    private readonly tools: ToolRegistry,
    private readonly memory: TurnMemory,
    private readonly agents: AgentDirectory,
    private readonly hold: SessionHold,
  ) {}

  async prepare(opened: Extract<OpenedTurn, { kind: 'new' | 'rerun' | 'resume' }>, signal?: AbortSignal): Promise<PreparedTurn> {
    const { turn, message, history } = opened;
    const { sessionId, agentId, agent } = turn;
    const canned = opened.kind === 'new' ? trivialReply(agent, message) : undefined;
    if (canned !== undefined) return { turn, message, messages: [], tools: [], iteration: 1, calls: [], canned, remember: false };
    const tools = this.tools.definitionsFor(agent.tools);
    const resuming = opened.kind === 'resume';
    const system = await this.prompts.build({
      agentId,
      agent,
      mode: resuming ? undefined : opened.input.promptMode,
      sessionId,
      channel: turn.channel,
      sender: turn.endpointId,
      message,
      signal: resuming ? undefined : signal,
    });
    const request: FitRequest = { sessionId, agentId, agent, system, history, historyLimit: agent.history_limit, current: [], tools };
    if (resuming) {
      // The same layered prompt and summaries the turn started with, in place of the resume point's placeholder.
      const prefix = await this.compaction.fit(request);
      const { at } = opened;
      at.messages.splice(0, 1, ...prefix.messages);
      return {
        turn,
        message,
        messages: at.messages,
        tools,
        iteration: at.iteration,
        pendingStep: at.step,
        calls: prefix.calls,
        remember: false,
      };
    }
    const current: ChatMessage[] = [...(opened.input.context ?? []), { role: 'user', content: message }];
    // A new turn's summaries came with its opening statement; a rerun's are read by the fit.
    const fitted = await this.compaction.fit({
      ...request,
      summaries: opened.kind === 'new' ? opened.summaries : undefined,
      current,
      signal,
    });
    let summaries = fitted.summaries;
    const messages = fitted.messages;
    let turnStart = messages.length - current.length;
    if (opened.kind === 'new') {
      // Recalled memories: their own system message after the layered prompt (bounded in time, never throws).
      // Read by the opening statement when it was planned for this agent (a session keeps the agent it was created with).
      const planned = opened.recall?.plan.agentId === agentId ? opened.recall : undefined;
      const recalled = planned
        ? this.memory.recallFromPlan(planned.plan, planned.rows, history)
        : await this.memory.recallForTurn({ person: turn.personId, agentId, message, history });
      if (recalled) {
        messages.splice(1, 0, { role: 'system', content: recalled });
        turnStart += 1;
      }
    }
    return {
      turn,
      message,
      messages,
      tools,
      iteration: 1,
      calls: fitted.calls,
      remember: opened.kind === 'new',
      fit: {
        turnStart,
        refit: async (currentTurn, refitSignal) => {
          const again = await this.compaction.fit({
            ...request,
            summaries,
            current: currentTurn,
            force: 'context_length',
            signal: refitSignal,
          });
          summaries = again.summaries;
          return { messages: again.messages, calls: again.calls, turnStart: again.messages.length - currentTurn.length };
        },
      },
    };
  }

  /**
   * `/compact`: summarise a session's older turns now (unknown session: not_found). It runs in the session's
   * lane, so it holds the session like a turn (released when the lane moves on).
   */
  async compactNow(sessionId: string, signal?: AbortSignal): Promise<CompactReport> {
    const agentId = await this.compaction.sessionAgent(sessionId);
    if (!agentId) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    await this.hold.takeFor(sessionId, randomUUID(), signal);
    return this.compaction.compactNow(sessionId, agentId, this.agents.get(agentId), signal);
  }
}

/** A template reply when the agent answers greetings and thanks without the model. */
function trivialReply(agent: AgentConfig, message: string): string | undefined {
  if (!agent.classifier.enabled) return undefined;
  const match = classifyTrivial(message);
  if (!match) return undefined;
  const replies = agent.classifier.replies[match.zh ? (`${match.kind}_zh` as const) : match.kind];
  return replies[Math.floor(Math.random() * replies.length)];
}
