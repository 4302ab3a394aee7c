import { Injectable, Logger } from '@nestjs/common';
import type { LinkedTurn } from '../session/session.types';
import type { TurnUsage } from '../agent.events';
import { InterruptedTurnRepository } from './interrupted-turn.repository';

/**
 * What recovery does with a turn whose model request may already have left when the process died:
 * `notify` answers it with a notice (never sent to the model twice, never billed twice), `rerun`
 * asks the model again. A turn cut short before any request started is always run again.
 */
export type InterruptedTurnPolicy = 'notify' | 'rerun';

/** The answer recorded and delivered in place of one lost to a restart. */
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

/** Recovery's choice for a linked turn that did not finish: a notice (stored once, replayed after) or undefined to run it again. */
@Injectable()
export class InterruptedTurns {
  private readonly logger = new Logger('Agent');

  constructor(private readonly repo: InterruptedTurnRepository) {}

  async settle(
    linked: LinkedTurn,
    input: { channel: string; endpointId?: string; interruptedTurns?: InterruptedTurnPolicy },
  ): Promise<NoticeResult | undefined> {
    const { sessionId, turnId } = linked;
    const state = await this.repo.state(sessionId, turnId);
    const result = (reply: string): NoticeResult => ({
      sessionId,
      turnId,
      reply,
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      interrupted: false,
      replayed: true,
    });
    if (state.notice !== null) return result(state.notice);
    if (state.paused || state.modelCalls === 0 || (input.interruptedTurns ?? 'rerun') !== 'notify') return undefined;
    const notice = interruptedNotice(linked.content);
    await this.repo.closeWithNotice({ sessionId, turnId, notice, channel: input.channel, endpointId: input.endpointId });
    this.logger.warn(`turn ${turnId} was cut short by a restart after its model request may have left; answered with a notice`);
    return result(notice);
  }
}
