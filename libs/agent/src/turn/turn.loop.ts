import { Injectable, Logger } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { ChatMessage, ChatResponse, LlmCallRecord, ProviderChainError, ReliableProvider } from '@nestclaw/provider';
import { AgentDirectory } from '../agent.directory';
import type { TurnOptions, TurnResult } from '../agent.types';
import { TurnRepository } from '../session/turn.repository';
import type { NewMessage } from '../session/session.types';
import { callModel, CancelledTurnError, sumUsage } from './model-call';
import { StepInput, StepTurn, ToolStepRunner, TurnDetachedError } from './tool-step.runner';
import { TurnContext, TurnContextService } from './turn-context.service';
import { TurnLedger } from './turn-ledger';

/** Where a turn's model loop starts: fresh, or resumed from the database after an approval. */
export interface LoopStart {
  turn: StepTurn;
  messages: ChatMessage[];
  iteration: number;
  /** Resuming: finish this step's tool calls before calling the model again. */
  pendingStep?: StepInput;
  /** Fitting the window: calls already made for this turn (summaries), and how to refit after a context-length refusal. */
  context?: Pick<TurnContext, 'calls' | 'turnStart' | 'refit'>;
}

/**
 * model → tools → model … until a reply. Whatever happens, the turn is closed as ok, interrupted or
 * error, and every model attempt is recorded with it.
 */
@Injectable()
export class TurnLoop {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly config: ConfigService,
    private readonly sessions: TurnRepository,
    private readonly provider: ReliableProvider,
    private readonly context: TurnContextService,
    private readonly steps: ToolStepRunner,
    private readonly agents: AgentDirectory,
  ) {}

  /** A greeting or thanks answered from the agent's templates: a turn like any other, at zero cost. */
  async answerWithoutModel(turn: StepTurn, reply: string, options: TurnOptions): Promise<TurnResult> {
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

  async run(start: LoopStart, options: TurnOptions): Promise<TurnResult> {
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
