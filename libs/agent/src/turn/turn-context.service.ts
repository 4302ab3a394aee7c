import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import type { ChatMessage, LlmCallRecord, ToolDefinition } from '@nestclaw/provider';
import { ToolRegistry } from '@nestclaw/tool';
import { classifyTrivial } from '../classifier/trivial-message.classifier';
import { CompactionService, CompactReport } from '../compaction/compaction.service';
import { PromptMode, SystemPromptBuilder } from '../prompt/system-prompt.builder';
import type { StoredMessage, StoredSummary } from '../session/session.types';

export interface TurnContextRequest {
  sessionId: string;
  agentId: string;
  agent: AgentConfig;
  channel: string;
  sender?: string;
  message: string;
  history: StoredMessage[];
  /** The active summaries when the opening statement read them (else fitting reads them). */
  summaries?: StoredSummary[];
  /** Client-supplied earlier conversation (stateless OpenAI-style calls). */
  context?: ChatMessage[];
  mode?: PromptMode;
  signal?: AbortSignal;
}

export interface TurnContext {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** Summarisation calls made while fitting the window (billed with the turn). */
  calls: LlmCallRecord[];
  /** Index in `messages` where the current turn starts (what a refit must keep verbatim). */
  turnStart: number;
  /**
   * After the model said the request is too long: summarise everything before the current turn and
   * return the new prefix for `currentTurn`.
   */
  refit(currentTurn: ChatMessage[], signal?: AbortSignal): Promise<{ messages: ChatMessage[]; calls: LlmCallRecord[]; turnStart: number }>;
}

/**
 * What the model sees for a turn: the layered system prompt, the history fitted into the model's
 * window (compacting when needed) and the tool definitions; and the trivial-message shortcut.
 */
@Injectable()
export class TurnContextService {
  constructor(
    private readonly prompts: SystemPromptBuilder,
    private readonly compaction: CompactionService,
    private readonly tools: ToolRegistry,
  ) {}

  /** A template reply when the agent answers greetings and thanks without the model. */
  trivialReply(agent: AgentConfig, message: string): string | undefined {
    if (!agent.classifier.enabled) return undefined;
    const match = classifyTrivial(message);
    if (!match) return undefined;
    const replies = agent.classifier.replies[match.zh ? (`${match.kind}_zh` as const) : match.kind];
    return replies[Math.floor(Math.random() * replies.length)];
  }

  /** Compacts a session now; `agentOf` resolves the session's agent config (unknown session: not_found). */
  async compactNow(sessionId: string, agentOf: (agentId: string) => AgentConfig, signal?: AbortSignal): Promise<CompactReport> {
    const agentId = await this.compaction.sessionAgent(sessionId);
    if (!agentId) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    return this.compaction.compactNow(sessionId, agentId, agentOf(agentId), signal);
  }

  toolsFor(agent: AgentConfig): ToolDefinition[] {
    return this.tools.definitionsFor(agent.tools);
  }

  /** System prompt, summaries and verbatim history, without the current turn (resuming after an approval). */
  async prefix(req: Omit<TurnContextRequest, 'context'>): Promise<{ messages: ChatMessage[]; calls: LlmCallRecord[] }> {
    const system = await this.systemFor(req);
    const fitted = await this.compaction.fit({
      sessionId: req.sessionId,
      agentId: req.agentId,
      agent: req.agent,
      system,
      history: req.history,
      historyLimit: req.agent.history_limit,
      current: [],
      tools: this.toolsFor(req.agent),
      signal: req.signal,
    });
    return { messages: fitted.messages, calls: fitted.calls };
  }

  private systemFor(req: Omit<TurnContextRequest, 'context'>): Promise<string | undefined> {
    return this.prompts.build({
      agentId: req.agentId,
      agent: req.agent,
      mode: req.mode,
      sessionId: req.sessionId,
      channel: req.channel,
      sender: req.sender,
      message: req.message,
      signal: req.signal,
    });
  }

  async prepare(req: TurnContextRequest): Promise<TurnContext> {
    const system = await this.systemFor(req);
    const tools = this.toolsFor(req.agent);
    const current: ChatMessage[] = [...(req.context ?? []), { role: 'user', content: req.message }];
    const base = {
      sessionId: req.sessionId,
      agentId: req.agentId,
      agent: req.agent,
      system,
      history: req.history,
      historyLimit: req.agent.history_limit,
      tools,
    };
    const fitted = await this.compaction.fit({ ...base, summaries: req.summaries, current, signal: req.signal });
    let summaries = fitted.summaries;
    return {
      messages: fitted.messages,
      tools,
      calls: fitted.calls,
      turnStart: fitted.messages.length - current.length,
      refit: async (currentTurn, signal) => {
        const again = await this.compaction.fit({ ...base, summaries, current: currentTurn, force: 'context_length', signal });
        summaries = again.summaries;
        return { messages: again.messages, calls: again.calls, turnStart: again.messages.length - currentTurn.length };
      },
    };
  }
}
