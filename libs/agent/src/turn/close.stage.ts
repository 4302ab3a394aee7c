import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { TurnMemory } from '@nestclaw/memory';
import type { LlmCallRecord } from '@nestclaw/provider';
import { HookRegistry } from '@nestclaw/tool';
import type { TurnOptions, TurnResult } from '../agent.types';
import { TurnRepository } from '../session/turn.repository';
import type { NewMessage } from '../session/session.types';
import { InterruptedTurnRepository } from './interrupted-turn.repository';
import { SessionHold } from './session-hold';
import type { ActiveTurn, LoopOutcome, OpenedTurn, PreparedTurn } from './turn.types';

/**
 * Stage 5, close: the closing statement (the reply, the completed ledger rows, the user message
 * leaving `pending` as ok, interrupted or error) whatever the loop's outcome, then `done` and, for
 * a new message answered, remembering the exchange (not awaited: never on the reply's path). A
 * turn settled when it opened (a stored answer, a notice) closes here too.
 */
@Injectable()
export class CloseStage {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly sessions: TurnRepository,
    private readonly notices: InterruptedTurnRepository,
    private readonly memory: TurnMemory,
    private readonly hooks: HookRegistry,
    private readonly hold: SessionHold,
  ) {}

  async close(p: PreparedTurn, outcome: LoopOutcome, options: TurnOptions): Promise<TurnResult> {
    const { turn } = p;
    const { sessionId, turnId } = turn;
    if (outcome.status !== 'ok') {
      await this.store(turn, outcome.status, outcome.reply, outcome.messages, outcome.calls).catch((dbErr: unknown) =>
        this.logger.error(`could not close turn ${turnId}: ${(dbErr as Error).message}`),
      );
      throw outcome.error;
    }
    const { reply, usage } = outcome;
    try {
      await this.store(turn, 'ok', reply, outcome.messages, outcome.calls);
    } catch (e) {
      // A model turn whose closing statement failed is closed as an error, keeping what was streamed.
      if (!outcome.canned) {
        const text = outcome.streamed;
        const kept: NewMessage[] = text ? [{ role: 'assistant', content: text, status: 'interrupted' }] : [];
        await this.store(turn, 'error', text, kept, []).catch((dbErr: unknown) =>
          this.logger.error(`could not close turn ${turnId}: ${(dbErr as Error).message}`),
        );
      }
      throw e;
    }
    if (outcome.canned) options.onEvent?.({ type: 'token', text: reply });
    options.onEvent?.({ type: 'done', sessionId, turnId, reply, usage, interrupted: false });
    if (p.remember)
      this.memory.rememberTurn({ person: turn.personId, agentId: turn.agentId, sessionId, turnId, user: p.message, assistant: reply });
    return { sessionId, turnId, reply, usage, interrupted: false };
  }

  /** A turn whose answer was settled when it opened: its stored answer, or a notice stored now. */
  async settled(
    opened: Extract<OpenedTurn, { kind: 'replay' | 'notify' | 'stale' }>,
    options: TurnOptions,
  ): Promise<TurnResult | undefined> {
    if (opened.kind === 'stale') return undefined;
    let result: TurnResult;
    if (opened.kind === 'replay') result = opened.result;
    else {
      const { linked, input, notice } = opened;
      const { sessionId, turnId } = linked;
      await this.notices.closeWithNotice({ sessionId, turnId, notice, channel: input.channel, endpointId: input.endpointId });
      this.logger.warn(`turn ${turnId} was cut short by a restart after ${opened.why}; answered with a notice`);
      result = {
        sessionId,
        turnId,
        reply: notice,
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        interrupted: false,
        replayed: true,
      };
    }
    const { sessionId, turnId, reply, usage } = result;
    options.onEvent?.({ type: 'done', sessionId, turnId, reply, usage, interrupted: false });
    return result;
  }

  /** `/compact` outside a turn: its summarisation calls, billed under a turn id of their own. */
  async recordCompaction(sessionId: string, calls: LlmCallRecord[]): Promise<void> {
    if (calls.length) await this.sessions.recordProgress({ sessionId, turnId: randomUUID(), messages: [], calls });
  }

  /** Fires SessionEnd for a session whose conversation is over. */
  endSession(sessionId: string, agentId: string): Promise<void> {
    return this.hooks.sessionEnd({ sessionId, agentId });
  }

  /** The closing statement, which also releases the session's hold (no round trip of its own on the usual path). */
  private async store(
    turn: ActiveTurn,
    status: 'ok' | 'interrupted' | 'error',
    reply: string,
    messages: NewMessage[],
    calls: LlmCallRecord[],
  ) {
    const { sessionId, turnId, channel, endpointId } = turn;
    await this.sessions.recordProgress({ sessionId, turnId, messages, calls, close: { status, reply, channel, endpointId } });
    this.hold.closed(sessionId, turnId);
  }
}
