import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { ChatResponse, LlmCallRecord, ProviderChainError, ReliableProvider } from '@nestclaw/provider';
import type { TurnOptions } from '../agent.types';
import type { NewMessage } from '../session/session.types';
import { callModel, CancelledTurnError, sumUsage } from './model-call';
import { ToolStepRunner } from './tool-step.runner';
import { LoopOutcome, PreparedTurn, TurnDetachedError } from './turn.types';

const noEvents = () => undefined;

/**
 * Stage 4, loop: model → tools → model … until a reply (or the template reply, without the model).
 * Every model attempt has its ledger row; tool steps store their progress through the ledger. It
 * ends with an outcome for close to store, whatever happened; only a turn paused for an approval
 * with nobody waiting (TurnDetachedError) skips close: it stays open and resumes on the decision.
 */
@Injectable()
export class LoopStage {
  constructor(
    private readonly config: ConfigService,
    private readonly provider: ReliableProvider,
    private readonly steps: ToolStepRunner,
  ) {}

  async run(p: PreparedTurn, options: TurnOptions): Promise<LoopOutcome> {
    const { turn, messages, fit } = p;
    const { sessionId, turnId, agent, ledger } = turn;
    const emit = options.onEvent ?? noEvents;
    if (p.calls.length) await ledger.record([], p.calls);
    emit({ type: 'started', sessionId, turnId });
    if (p.canned !== undefined) {
      const usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
      return {
        status: 'ok',
        reply: p.canned,
        messages: [{ role: 'assistant', content: p.canned }],
        calls: [],
        usage,
        canned: true,
        streamed: '',
      };
    }
    const allCalls: LlmCallRecord[] = [...p.calls];
    const deadline = Date.now() + this.config.get().providers.timeout_budget;
    let refitted = false;
    let partial = '';
    let pendingStep = p.pendingStep;
    try {
      for (let iteration = p.iteration; ; iteration++) {
        if (pendingStep) {
          const step = await this.steps.run(turn, pendingStep, options.signal, emit);
          pendingStep = undefined;
          messages.push(...step.prompt);
          await ledger.record(step.unsaved, step.llmCalls, step.audit);
        }
        const lastChance = iteration >= agent.max_iterations;
        const request = { messages, tools: lastChance ? undefined : p.tools, signal: options.signal };
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
          if (!isContextLength(e) || !fit || partial) throw e;
          if (refitted || Date.now() >= deadline) throw tooLongAfterCompaction(e, refitted);
          // The model refused the request as too long: summarise everything before this turn, retry once.
          refitted = true;
          allCalls.push(...e.calls);
          const again = await fit.refit(messages.slice(fit.turnStart), options.signal);
          fit.turnStart = again.turnStart;
          messages.splice(0, messages.length, ...again.messages);
          allCalls.push(...again.calls);
          await ledger.record([], [...e.calls, ...again.calls]);
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
          return {
            status: 'ok',
            reply,
            messages: [{ role: 'assistant', content: reply }],
            calls,
            usage: sumUsage(allCalls),
            canned: false,
            streamed: partial,
          };
        }
        pendingStep = { content: response.content, calls: response.toolCalls, llmCalls: calls };
      }
    } catch (e) {
      // Paused for approval with nobody listening: the turn stays open and resumes on the decision.
      if (e instanceof TurnDetachedError) throw e;
      const calls = e instanceof ProviderChainError || e instanceof CancelledTurnError ? e.calls : [];
      const text = e instanceof ProviderChainError && e.partialText ? e.partialText : partial;
      const cancelled =
        options.signal?.aborted || (e instanceof NestclawError && (e.code === 'cancelled' || e.code === 'stream_interrupted'));
      const kept: NewMessage[] = text ? [{ role: 'assistant', content: text, status: 'interrupted' }] : [];
      return { status: cancelled ? 'interrupted' : 'error', reply: text, messages: kept, calls, error: e };
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
