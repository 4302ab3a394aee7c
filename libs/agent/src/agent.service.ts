import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { KeyedQueue, NestclawError } from '@nestclaw/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import { TurnMemory } from '@nestclaw/memory';
import { ChatMessage, ChatResponse, LlmCallRecord, ProviderChainError, ReliableProvider, providerNotConfigured } from '@nestclaw/provider';
import { Approval, ApprovalService, HookRegistry, ToolRegistry } from '@nestclaw/tool';
import { AgentEvent, TurnUsage } from './agent.events';
import { newSessionId } from './session/session-key';
import { NewMessage, SessionRepository } from './session/session.repository';
import { buildPrompt } from './turn/prompt.builder';
import { resumePoint } from './turn/resume-point';
import { StepInput, StepTurn, ToolStepRunner, TurnDetachedError } from './turn/tool-step.runner';

export interface TurnInput {
  message: string;
  sessionId?: string;
  agentId?: string;
  /** Where the message came from: http, sse, ws, openai, cli, telegram, … */
  channel: string;
  endpointId?: string;
  /** Create `sessionId` if it does not exist (OpenAI-compatible clients pick their own ids). */
  createSession?: boolean;
  /** Earlier conversation supplied by the client (stateless OpenAI-style calls); not stored. */
  context?: ChatMessage[];
  /** Paired API token making the request (absent for the owner and channels): scopes session access. */
  principalId?: string;
}

export interface TurnOptions {
  signal?: AbortSignal;
  /** Stream tokens from the model (events arrive through onEvent either way). */
  stream?: boolean;
  onEvent?: (event: AgentEvent) => void;
}

export interface TurnResult {
  sessionId: string;
  turnId: string;
  reply: string;
  usage: TurnUsage;
  interrupted: boolean;
}

const sumUsage = (calls: readonly LlmCallRecord[]): TurnUsage => ({
  inputTokens: calls.reduce((a, c) => a + c.usage.inputTokens, 0),
  outputTokens: calls.reduce((a, c) => a + c.usage.outputTokens, 0),
  costUsd: Math.round(calls.reduce((a, c) => a + c.costUsd, 0) * 1e8) / 1e8,
});

/** Where a turn's model loop starts: fresh, or resumed from the database after an approval. */
interface LoopStart {
  turn: StepTurn;
  messages: ChatMessage[];
  iteration: number;
  /** Resuming: finish this step's tool calls before calling the model again. */
  pendingStep?: StepInput;
}

/**
 * The agent loop: history → prompt → model → tools → … → reply, one turn at a time per session.
 * The user message is committed before the model is called; whatever happens after, the turn is
 * closed as ok, interrupted or error, and every model attempt is recorded with it. A tool call
 * that needs approval pauses the turn; it resumes in-process, or from the database after a
 * restart or a client disconnect.
 */
@Injectable()
export class AgentService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Agent');
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly config: ConfigService,
    private readonly sessions: SessionRepository,
    private readonly provider: ReliableProvider,
    private readonly tools: ToolRegistry,
    private readonly steps: ToolStepRunner,
    private readonly approvals: ApprovalService,
    private readonly hooks: HookRegistry,
    private readonly memory: TurnMemory,
  ) {}

  onModuleInit(): void {
    // A decision nobody in this process was waiting for (restart, client gone): resume the turn.
    this.approvals.events.on('decided', ({ approval, delivered }) => {
      if (!delivered) void this.resume(approval);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const n = await this.sessions.interruptOpenTurns();
    if (n > 0) this.logger.warn(`${n} turn(s) left open by an earlier crash were marked interrupted`);
    await this.approvals.recover();
  }

  agentConfig(agentId: string): AgentConfig {
    const agent = this.config.get().agents[agentId];
    if (!agent) {
      throw new NestclawError(
        'invalid_request',
        `Unknown agentId "${agentId}"; configured agents: ${Object.keys(this.config.get().agents).join(', ')}`,
      );
    }
    return agent;
  }

  /** Queues a turn behind earlier ones for the same session and runs it. */
  run(input: TurnInput, options: TurnOptions = {}): Promise<TurnResult> {
    const agentId = input.agentId ?? 'default';
    const agent = this.agentConfig(agentId);
    if (!this.provider.isConfigured({ primary: agent.model, fallback: agent.fallback })) throw providerNotConfigured();
    const sessionId = input.sessionId ?? newSessionId();
    const create = input.createSession || !input.sessionId;
    return this.queue.run(sessionId, () => this.runTurn({ ...input, sessionId, agentId, createSession: create }, agent, options));
  }

  /** Fires SessionEnd for a session whose conversation is over (channels and the CLI call this). */
  async endSession(sessionId: string, agentId = 'default'): Promise<void> {
    await this.hooks.sessionEnd({ sessionId, agentId });
  }

  private async runTurn(
    input: TurnInput & { sessionId: string; agentId: string },
    agent: AgentConfig,
    options: TurnOptions,
  ): Promise<TurnResult> {
    const { sessionId } = input;
    if (options.signal?.aborted) throw new NestclawError('cancelled', 'The request was cancelled before it started');
    const submitted = await this.hooks.userPromptSubmit({ sessionId, agentId: input.agentId, prompt: input.message });
    if (submitted.block) throw new NestclawError('forbidden', `The message was blocked: ${submitted.block}`);
    const message = submitted.prompt;
    const turnId = randomUUID();
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
    });
    if (!opened) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist; omit sessionId to start a new one`);
    if (opened.created) await this.hooks.sessionStart({ sessionId, agentId: opened.agentId });
    // A session keeps the agent it was created with.
    const sessionAgent = opened.agentId === input.agentId ? agent : this.agentConfig(opened.agentId);
    const messages: ChatMessage[] = buildPrompt(this.systemPrompt(sessionAgent), opened.history, message);
    const personId = this.memory.personOf(input);
    // Recalled memories: their own system message after the system prompt (bounded in time, never throws).
    const recalled = await this.memory.recallForTurn({ person: personId, agentId: opened.agentId, message, history: opened.history });
    if (recalled) messages.splice(1, 0, { role: 'system', content: recalled });
    if (input.context?.length) messages.splice(1, 0, ...input.context);
    const turn: StepTurn = {
      sessionId,
      turnId,
      agentId: opened.agentId,
      channel: input.channel,
      endpointId: input.endpointId,
      agent: sessionAgent,
      personId,
    };
    const result = await this.loop({ turn, messages, iteration: 1 }, options);
    if (!result.interrupted) {
      this.memory.rememberTurn({ person: personId, agentId: opened.agentId, sessionId, turnId, user: message, assistant: result.reply });
    }
    return result;
  }

  private systemPrompt(agent: AgentConfig): string {
    return agent.system_prompt ?? this.config.get().prompts.system;
  }

  private async loop(start: LoopStart, options: TurnOptions): Promise<TurnResult> {
    const { turn, messages } = start;
    const { sessionId, turnId, agent } = turn;
    const toolDefs = this.tools.definitionsFor(agent.tools);
    const allCalls: LlmCallRecord[] = [];
    const emit = options.onEvent ?? (() => undefined);
    emit({ type: 'started', sessionId, turnId });
    const close = (status: 'ok' | 'interrupted' | 'error', reply: string, extra: NewMessage[], calls: LlmCallRecord[]) =>
      this.sessions.recordProgress({
        sessionId,
        turnId,
        messages: extra,
        calls,
        close: { status, reply, channel: turn.channel, endpointId: turn.endpointId },
      });

    let partial = '';
    let pendingStep = start.pendingStep;
    try {
      for (let iteration = start.iteration; ; iteration++) {
        if (pendingStep) {
          const step = await this.steps.run(turn, pendingStep, options.signal, emit);
          pendingStep = undefined;
          messages.push(...step.prompt);
          await this.sessions.recordProgress({ sessionId, turnId, messages: step.unsaved, calls: step.llmCalls });
        }
        const lastChance = iteration >= agent.max_iterations;
        const request = { messages, tools: lastChance ? undefined : toolDefs, signal: options.signal };
        partial = '';
        let response: ChatResponse;
        let calls: LlmCallRecord[];
        if (options.stream) {
          ({ response, calls } = await this.streamOnce(request, agent, (text) => {
            partial += text;
            emit({ type: 'token', text });
          }));
        } else {
          ({ response, calls } = await this.provider.chat(request, {
            primary: agent.model,
            fallback: agent.fallback,
            signal: options.signal,
          }));
        }
        allCalls.push(...calls);
        // A provider may end an aborted stream quietly; the client cancelled, so the turn did not finish.
        if (options.signal?.aborted) {
          partial = response.content || partial;
          throw new CancelledTurnError(calls);
        }
        if (response.toolCalls.length === 0 || lastChance) {
          const reply = response.content;
          await close('ok', reply, [{ role: 'assistant', content: reply }], calls);
          const usage = sumUsage(allCalls);
          emit({ type: 'done', sessionId, turnId, reply, usage, interrupted: false });
          return { sessionId, turnId, reply, usage, interrupted: false };
        }
        pendingStep = { content: response.content, calls: response.toolCalls, llmCalls: calls };
      }
    } catch (e) {
      // Paused for approval with nobody listening: the turn stays open and resumes on the decision.
      if (e instanceof TurnDetachedError) throw e;
      const calls = e instanceof ProviderChainError || e instanceof CancelledTurnError ? e.calls : [];
      allCalls.push(...calls);
      const text = e instanceof ProviderChainError && e.partialText ? e.partialText : partial;
      const cancelled =
        options.signal?.aborted || (e instanceof NestclawError && (e.code === 'cancelled' || e.code === 'stream_interrupted'));
      const kept: NewMessage[] = text ? [{ role: 'assistant', content: text, status: 'interrupted' }] : [];
      await close(cancelled ? 'interrupted' : 'error', text, kept, calls).catch((dbErr: unknown) =>
        this.logger.error(`could not close turn ${turnId}: ${(dbErr as Error).message}`),
      );
      throw e;
    }
  }

  /** Continues a paused turn from the database once its approval is decided. */
  resume(approval: Approval): Promise<void> {
    return this.queue
      .run(approval.sessionId, () => this.resumeTurn(approval))
      .catch((e: unknown) => this.logger.error(`resuming turn ${approval.turnId} failed: ${(e as Error).message}`));
  }

  private async resumeTurn(a: Approval): Promise<void> {
    const agent = this.agentConfig(a.agentId);
    const { history, turn } = await this.sessions.loadTurn(a.sessionId, a.turnId, agent.history_limit);
    const point = resumePoint(a, this.systemPrompt(agent), history, turn);
    if (!point.ok) {
      this.logger.warn(`approval ${a.id} was decided but cannot resume: ${point.why}`);
      return;
    }
    this.logger.log(`resuming turn ${a.turnId} after approval ${a.id} (${a.status})`);
    const endpointId = a.endpointId ?? undefined;
    await this.loop(
      {
        turn: { sessionId: a.sessionId, turnId: a.turnId, agentId: a.agentId, channel: a.channel, endpointId, agent },
        messages: point.messages,
        iteration: point.iteration,
        pendingStep: point.step,
      },
      {},
    );
  }

  private async streamOnce(
    request: { messages: ChatMessage[]; tools?: ReturnType<ToolRegistry['definitionsFor']>; signal?: AbortSignal },
    agent: AgentConfig,
    onText: (text: string) => void,
  ): Promise<{ response: ChatResponse; calls: LlmCallRecord[] }> {
    for await (const event of this.provider.chatStream(request, {
      primary: agent.model,
      fallback: agent.fallback,
      signal: request.signal,
    })) {
      if (event.type === 'text') onText(event.text);
      else if (event.type === 'done') return { response: event.response, calls: event.calls };
    }
    throw new NestclawError('provider_error', 'The model stream ended without a final response');
  }
}

/** The client cancelled while the model was answering; carries the call records to store. */
class CancelledTurnError extends NestclawError {
  constructor(readonly calls: LlmCallRecord[]) {
    super('cancelled', 'The request was cancelled');
  }
}
