import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import {
  ChatMessage,
  ChatResponse,
  LlmCallRecord,
  ProviderChainError,
  ReliableProvider,
  ToolCall,
  providerNotConfigured,
} from '@nestclaw/provider';
import { ToolRegistry } from '@nestclaw/tool';
import { AgentEvent, TurnUsage } from './agent.events';
import { KeyedQueue } from './session/keyed-queue';
import { newSessionId } from './session/session-key';
import { NewMessage, SessionRepository } from './session/session.repository';
import { buildPrompt } from './turn/prompt.builder';

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

/**
 * The agent loop: history → prompt → model → tools → … → reply, one turn at a time per session.
 * The user message is committed before the model is called; whatever happens after, the turn is
 * closed as ok, interrupted or error, and every model attempt is recorded with it.
 */
@Injectable()
export class AgentService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Agent');
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly config: ConfigService,
    private readonly sessions: SessionRepository,
    private readonly provider: ReliableProvider,
    private readonly tools: ToolRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const n = await this.sessions.interruptOpenTurns();
    if (n > 0) this.logger.warn(`${n} turn(s) left open by an earlier crash were marked interrupted`);
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
    if (!this.provider.isConfigured({ primary: agent.model })) throw providerNotConfigured();
    const sessionId = input.sessionId ?? newSessionId();
    const create = input.createSession || !input.sessionId;
    return this.queue.run(sessionId, () => this.runTurn({ ...input, sessionId, agentId, createSession: create }, agent, options));
  }

  private async runTurn(
    input: TurnInput & { sessionId: string; agentId: string },
    agent: AgentConfig,
    options: TurnOptions,
  ): Promise<TurnResult> {
    const { sessionId } = input;
    if (options.signal?.aborted) throw new NestclawError('cancelled', 'The request was cancelled before it started');
    const turnId = randomUUID();
    const opened = await this.sessions.openTurn({
      sessionId,
      turnId,
      agentId: input.agentId,
      content: input.message,
      channel: input.channel,
      endpointId: input.endpointId,
      create: !!input.createSession,
      historyLimit: agent.history_limit,
    });
    if (!opened) throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist; omit sessionId to start a new one`);
    // A session keeps the agent it was created with.
    const sessionAgent = opened.agentId === input.agentId ? agent : this.agentConfig(opened.agentId);
    const systemPrompt = sessionAgent.system_prompt ?? this.config.get().prompts.system;
    const messages: ChatMessage[] = buildPrompt(systemPrompt, opened.history, input.message);
    if (input.context?.length) messages.splice(1, 0, ...input.context);
    const toolDefs = this.tools.definitionsFor(sessionAgent.tools);
    const allCalls: LlmCallRecord[] = [];
    const emit = options.onEvent ?? (() => undefined);
    emit({ type: 'started', sessionId, turnId });
    const close = (status: 'ok' | 'interrupted' | 'error', reply: string, extra: NewMessage[], calls: LlmCallRecord[]) =>
      this.sessions.recordProgress({
        sessionId,
        turnId,
        messages: extra,
        calls,
        close: { status, reply, channel: input.channel, endpointId: input.endpointId },
      });

    let partial = '';
    try {
      for (let iteration = 1; ; iteration++) {
        const lastChance = iteration >= sessionAgent.max_iterations;
        const request = { messages, tools: lastChance ? undefined : toolDefs, signal: options.signal };
        partial = '';
        let response: ChatResponse;
        let calls: LlmCallRecord[];
        if (options.stream) {
          ({ response, calls } = await this.streamOnce(request, sessionAgent, (text) => {
            partial += text;
            emit({ type: 'token', text });
          }));
        } else {
          ({ response, calls } = await this.provider.chat(request, { primary: sessionAgent.model, signal: options.signal }));
        }
        allCalls.push(...calls);
        if (response.toolCalls.length === 0 || lastChance) {
          const reply = response.content;
          await close('ok', reply, [{ role: 'assistant', content: reply }], calls);
          const usage = sumUsage(allCalls);
          emit({ type: 'done', sessionId, turnId, reply, usage, interrupted: false });
          return { sessionId, turnId, reply, usage, interrupted: false };
        }
        const step = await this.runTools(
          response.content,
          response.toolCalls,
          { sessionId, turnId, agentId: input.agentId },
          sessionAgent,
          options.signal,
          emit,
        );
        messages.push(...step.prompt);
        await this.sessions.recordProgress({ sessionId, turnId, messages: step.stored, calls });
      }
    } catch (e) {
      const calls = e instanceof ProviderChainError ? e.calls : [];
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

  private async streamOnce(
    request: { messages: ChatMessage[]; tools?: ReturnType<ToolRegistry['definitionsFor']>; signal?: AbortSignal },
    agent: AgentConfig,
    onText: (text: string) => void,
  ): Promise<{ response: ChatResponse; calls: LlmCallRecord[] }> {
    for await (const event of this.provider.chatStream(request, { primary: agent.model, signal: request.signal })) {
      if (event.type === 'text') onText(event.text);
      else if (event.type === 'done') return { response: event.response, calls: event.calls };
    }
    throw new NestclawError('provider_error', 'The model stream ended without a final response');
  }

  private async runTools(
    content: string,
    calls: ToolCall[],
    ctx: { sessionId: string; turnId: string; agentId: string },
    agent: AgentConfig,
    signal: AbortSignal | undefined,
    emit: (e: AgentEvent) => void,
  ): Promise<{ prompt: ChatMessage[]; stored: NewMessage[] }> {
    const prompt: ChatMessage[] = [{ role: 'assistant', content, toolCalls: calls }];
    const stored: NewMessage[] = [{ role: 'assistant', content, toolCalls: calls }];
    for (const call of calls) {
      let input: unknown = call.arguments;
      try {
        input = JSON.parse(call.arguments);
      } catch {
        // reported to the model by the registry
      }
      emit({ type: 'tool_call', id: call.id, name: call.name, input });
      const result = await this.tools.execute(call.name, call.arguments, ctx, agent.tools, signal ?? new AbortController().signal);
      emit({ type: 'tool_result', id: call.id, name: call.name, output: result.output, isError: result.isError });
      prompt.push({ role: 'tool', content: result.output, toolCallId: call.id, name: call.name });
      stored.push({
        role: 'tool',
        content: result.output,
        toolCallId: call.id,
        toolName: call.name,
        status: result.isError ? 'error' : 'ok',
      });
    }
    return { prompt, stored };
  }
}
