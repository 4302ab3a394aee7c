import { Injectable, Logger } from '@nestjs/common';
import { ToolRegistry } from '@nestclaw/tool';
import type { LinkedTurn } from '../session/session.types';
import type { TurnUsage } from '../agent.events';
import { InterruptedTurnRepository } from './interrupted-turn.repository';
import { InterruptedTurnPolicy, recoveryOf } from './interrupted-turn.recovery';

/** The answer recorded and delivered in place of one lost to a restart after a call that may have changed something. */
export function interruptedNotice(message: string): string {
  const chars = Array.from(message.replace(/\s+/g, ' ').trim());
  const excerpt = chars.length > 60 ? `${chars.slice(0, 60).join('')}…` : chars.join('');
  return `nestclaw restarted while answering "${excerpt}" and the answer was lost. Send it again to retry.`;
}

export interface NoticeResult {
  sessionId: string;
  turnId: string;
  reply: string;
  usage: TurnUsage;
  interrupted: false;
  replayed: true;
}

/**
 * Recovery's choice for a linked turn that did not finish (`recoveryOf`): a notice (stored once,
 * replayed after) or undefined to run it again.
 */
@Injectable()
export class InterruptedTurns {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly repo: InterruptedTurnRepository,
    private readonly tools: ToolRegistry,
  ) {}

  async settle(
    linked: LinkedTurn,
    input: { channel: string; endpointId?: string; interruptedTurns?: InterruptedTurnPolicy },
  ): Promise<NoticeResult | undefined> {
    const { sessionId, turnId } = linked;
    const state = await this.repo.state(sessionId, turnId);
    const sideEffects = state.toolCalls.some((c) => this.tools.mayHaveSideEffects(c.name, c.arguments));
    const recovery = recoveryOf({ ...state, sideEffects }, input.interruptedTurns ?? 'rerun');
    const result = (reply: string): NoticeResult => ({
      sessionId,
      turnId,
      reply,
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      interrupted: false,
      replayed: true,
    });
    if (recovery === 'replay') return result(state.notice!);
    if (recovery === 'rerun') return undefined;
    const notice = interruptedNotice(linked.content);
    await this.repo.closeWithNotice({ sessionId, turnId, notice, channel: input.channel, endpointId: input.endpointId });
    const why = sideEffects ? 'a tool call that may have changed something had started' : 'its model request may have left';
    this.logger.warn(`turn ${turnId} was cut short by a restart after ${why}; answered with a notice`);
    return result(notice);
  }
}
