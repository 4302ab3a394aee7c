import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { KeyedQueue, NestclawError } from '@nestclaw/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import { assertWithinBudget, beginTurn, turnOpened } from '@nestclaw/observability';
import { TurnMemory } from '@nestclaw/memory';
import { ChatMessage, ChatResponse, LlmCallRecord, ProviderChainError, ReliableProvider, providerNotConfigured } from '@nestclaw/provider';
import { Approval, ApprovalService, HookRegistry } from '@nestclaw/tool';
import { AgentEvent, TurnUsage } from './agent.events';
import { newSessionId } from './session/session-key';
import { LinkedTurn, NewMessage, SessionRepository } from './session/session.repository';
import type { PromptMode } from './prompt/system-prompt.builder';
import { resumePoint } from './turn/resume-point';
import { callModel, CancelledTurnError, sumUsage } from './turn/model-call';
import { StepInput, StepTurn, ToolStepRunner, TurnDetachedError } from './turn/tool-step.runner';
import { InterruptedTurns, InterruptedTurnPolicy } from './turn/interrupted-turns';
import { TurnLedger } from './turn/turn-ledger';
import { TurnContext, TurnContextService } from './turn/turn-context.service';

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
  /**
   * The inbound message this turn answers (channels: `<channel>:<inbound id>`). One turn per key: a
   * retry (`recovered`) of a message already answered returns the stored answer without calling the
   * model; one interrupted mid-way runs again in place of the unfinished attempt.
   */
  inboundKey?: string;
  /** The message may have been handled by an earlier process: look for its turn first. */
  recovered?: boolean;
  /** A recovered turn whose model request may already have left: answer with a notice, or ask again (default). */
  interruptedTurns?: InterruptedTurnPolicy;
  /** Override the agent's prompt mode (subagents and cheap tasks use `minimal`). */
  promptMode?: PromptMode;
}

export interface TurnOptions {
  signal?: AbortSignal;
  /** Stream tokens from the model (events arrive through onEvent either way). */
  stream?: boolean;
  onEvent?: (event: AgentEvent) => void;
}

export interface CompactResult {
  sessionId: string;
  /** Messages newly covered by a summary. */
  summarisedMessages: number;
  /** Summaries merged into one (stage 2). */
  mergedSummaries: number;
  usage: TurnUsage;
}

export interface TurnResult {
  sessionId: string;
  turnId: string;
  reply: string;
  usage: TurnUsage;
  interrupted: boolean;
  /** The stored answer of a turn that had already finished (nothing was sent to the model). */
  replayed?: boolean;
}

/** Where a turn's model loop starts: fresh, or resumed from the database after an approval. */
interface LoopStart {
  turn: StepTurn;
  messages: ChatMessage[];
  iteration: number;
  /** Resuming: finish this step's tool calls before calling the model again. */
  pendingStep?: StepInput;
  /** Fitting the window: calls already made for this turn (summaries), and how to refit after a context-length refusal. */
  context?: Pick<TurnContext, 'calls' | 'turnStart' | 'refit'>;
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
    private readonly context: TurnContextService,
    private readonly steps: ToolStepRunner,
    private readonly approvals: ApprovalService,
    private readonly hooks: HookRegistry,
    private readonly memory: TurnMemory,
    private readonly interrupted: InterruptedTurns,
  ) {}

  onModuleInit(): void {
    // A decision nobody in this process was waiting for (restart, client gone): resume the turn.
    this.approvals.events.on('decided', ({ approval, delivered }) => {
      if (!delivered) void this.resume(approval);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const n = await this.sessions.interruptOpenTurns();
    if (n.turns > 0)
      this.logger.warn(`${n.turns} turn(s) and ${n.calls} model call(s) left open by an earlier crash were marked interrupted`);
    await this.approvals.recover();
  }

  agentConfig(agentId: string): AgentConfig {
    // Own keys only: an agentId such as "__proto__" or "constructor" must be unknown, not Object's.
    const agents = this.config.get().agents;
    const agent = Object.hasOwn(agents, agentId) ? agents[agentId] : undefined;
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
    assertWithinBudget(agentId);
    const sessionId = input.sessionId ?? newSessionId();
    const create = input.createSession || !input.sessionId;
    const telemetry = beginTurn({ agent: agentId, channel: input.channel, sessionId, input: input.message });
    return this.queue.run(sessionId, () =>
      telemetry.run(() => this.runTurn({ ...input, sessionId, agentId, createSession: create }, agent, options)),
    );
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
    const sessionAgent = opened.agentId === input.agentId ? agent : this.agentConfig(opened.agentId);
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
    const canned = this.context.trivialReply(sessionAgent, message);
    if (canned !== undefined) return this.answerWithoutModel(turn, canned, options);
    const ctx = await this.context.prepare({
      sessionId,
      agentId: opened.agentId,
      agent: sessionAgent,
      channel: input.channel,
      sender: input.endpointId,
      message,
      history: opened.history,
      context: input.context,
      mode: input.promptMode,
      signal: options.signal,
    });
    // Recalled memories: their own system message after the layered prompt (bounded in time, never throws).
    const recalled = await this.memory.recallForTurn({ person: personId, agentId: opened.agentId, message, history: opened.history });
    if (recalled) {
      ctx.messages.splice(1, 0, { role: 'system', content: recalled });
      ctx.turnStart += 1;
    }
    if (ctx.calls.length) await this.sessions.recordProgress({ sessionId, turnId, messages: [], calls: ctx.calls });
    const result = await this.loop({ turn, messages: ctx.messages, iteration: 1, context: ctx }, options);
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
    const agent = this.agentConfig(linked.agentId);
    this.logger.log(`turn ${turnId} was cut short by a restart; answering its message again`);
    const history = await this.sessions.reopenTurn(linked, agent.history_limit);
    const turn: StepTurn = { sessionId, turnId, agentId: linked.agentId, channel: input.channel, endpointId: input.endpointId, agent };
    const ctx = await this.context.prepare({
      sessionId,
      agentId: linked.agentId,
      agent,
      channel: input.channel,
      sender: input.endpointId,
      message: linked.content,
      history,
      context: input.context,
      mode: input.promptMode,
      signal: options.signal,
    });
    if (ctx.calls.length) await this.sessions.recordProgress({ sessionId, turnId, messages: [], calls: ctx.calls });
    return this.loop({ turn, messages: ctx.messages, iteration: 1, context: ctx }, options);
  }

  /** A greeting or thanks answered from the agent's templates: a turn like any other, at zero cost. */
  private async answerWithoutModel(turn: StepTurn, reply: string, options: TurnOptions): Promise<TurnResult> {
    const { sessionId, turnId } = turn;
    const emit = options.onEvent ?? (() => undefined);
    emit({ type: 'started', sessionId, turnId });
    await this.sessions.recordProgress({
      sessionId,
      turnId,
      messages: [{ role: 'assistant', content: reply }],
      calls: [],
      close: { status: 'ok', reply, channel: turn.channel, endpointId: turn.endpointId },
    });
    const usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    emit({ type: 'token', text: reply });
    emit({ type: 'done', sessionId, turnId, reply, usage, interrupted: false });
    return { sessionId, turnId, reply, usage, interrupted: false };
  }

  /** `/compact` and `POST /v1/sessions/:id/compact`: summarise older turns now, queued behind running turns. */
  compact(sessionId: string, signal?: AbortSignal): Promise<CompactResult> {
    return this.queue.run(sessionId, async () => {
      const report = await this.context.compactNow(sessionId, (agentId) => this.agentConfig(agentId), signal);
      if (report.calls.length) await this.sessions.recordProgress({ sessionId, turnId: randomUUID(), messages: [], calls: report.calls });
      return { sessionId, summarisedMessages: report.summarisedMessages, mergedSummaries: report.merged, usage: sumUsage(report.calls) };
    });
  }

  private async loop(start: LoopStart, options: TurnOptions): Promise<TurnResult> {
    const { turn, messages } = start;
    const { sessionId, turnId, agent } = turn;
    const toolDefs = this.context.toolsFor(agent);
    const allCalls: LlmCallRecord[] = [...(start.context?.calls ?? [])];
    const deadline = Date.now() + this.config.get().providers.timeout_budget;
    let refitted = false;
    const emit = options.onEvent ?? (() => undefined);
    emit({ type: 'started', sessionId, turnId });
    const ledger = new TurnLedger(this.sessions, sessionId, turnId);
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
        const onText = options.stream
          ? (text: string) => {
              partial += text;
              emit({ type: 'token', text });
            }
          : undefined;
        let response: ChatResponse;
        let calls: LlmCallRecord[];
        try {
          ({ response, calls } = await callModel(this.provider, request, agent, ledger, onText));
        } catch (e) {
          if (!isContextLength(e) || !start.context || partial) throw e;
          if (refitted || Date.now() >= deadline) throw tooLongAfterCompaction(e, refitted);
          // The model refused the request as too long: summarise everything before this turn, retry once.
          refitted = true;
          allCalls.push(...e.calls);
          const ctx = start.context;
          const again = await ctx.refit(messages.slice(ctx.turnStart), options.signal);
          ctx.turnStart = again.turnStart;
          messages.splice(0, messages.length, ...again.messages);
          allCalls.push(...again.calls);
          await this.sessions.recordProgress({ sessionId, turnId, messages: [], calls: [...e.calls, ...again.calls] });
          iteration--;
          continue;
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
    const point = resumePoint(a, '', [], turn);
    if (!point.ok) {
      this.logger.warn(`approval ${a.id} was decided but cannot resume: ${point.why}`);
      return;
    }
    this.logger.log(`resuming turn ${a.turnId} after approval ${a.id} (${a.status})`);
    const endpointId = a.endpointId ?? undefined;
    // The same layered prompt and summaries the turn started with, in place of the placeholder system message.
    const prefix = await this.context.prefix({
      sessionId: a.sessionId,
      agentId: a.agentId,
      agent,
      channel: a.channel,
      sender: endpointId,
      message: turn[0]?.content ?? '',
      history,
    });
    point.messages.splice(0, 1, ...prefix.messages);
    if (prefix.calls.length)
      await this.sessions.recordProgress({ sessionId: a.sessionId, turnId: a.turnId, messages: [], calls: prefix.calls });
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
}

const isContextLength = (e: unknown): e is ProviderChainError => e instanceof ProviderChainError && e.code === 'context_length_exceeded';

/** The second refusal (or no time left to retry): say what to do instead. */
function tooLongAfterCompaction(e: ProviderChainError, compacted: boolean): ProviderChainError {
  const what = compacted ? 'even after compacting older messages' : 'and there is no time left in the timeout budget to compact and retry';
  return new ProviderChainError(
    new NestclawError(
      'context_length_exceeded',
      `The conversation is too long for the model ${what}. Start a new conversation (/new), shorten the message, or use a model with a larger context_window.`,
    ),
    e.calls,
  );
}
