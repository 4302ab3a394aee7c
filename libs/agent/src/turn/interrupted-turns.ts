import { Injectable } from '@nestjs/common';
import { ToolRegistry } from '@nestclaw/tool';
import type { LinkedTurn } from '../session/session.types';
import { InterruptedTurnRepository } from './interrupted-turn.repository';
import { InterruptedTurnPolicy, recoveryOf } from './interrupted-turn.recovery';

/** The answer recorded and delivered in place of one lost to a restart after a call that may have changed something. */
export function interruptedNotice(message: string): string {
  const chars = Array.from(message.replace(/\s+/g, ' ').trim());
  const excerpt = chars.length > 60 ? `${chars.slice(0, 60).join('')}…` : chars.join('');
  return `nestclaw restarted while answering "${excerpt}" and the answer was lost. Send it again to retry.`;
}

/** What to do with a linked turn that did not finish: its stored notice, a new notice (and why), or run it again. */
export type LinkedRecovery = { kind: 'replay'; notice: string } | { kind: 'notify'; notice: string; why: string } | { kind: 'rerun' };

/**
 * Part of the open stage: recovery's choice (`recoveryOf`) for a linked turn that did not finish,
 * from what it left behind. The close stage stores a new notice as the turn's answer.
 */
@Injectable()
export class InterruptedTurns {
  constructor(
    private readonly repo: InterruptedTurnRepository,
    private readonly tools: ToolRegistry,
  ) {}

  async recoveryFor(linked: LinkedTurn, policy: InterruptedTurnPolicy | undefined): Promise<LinkedRecovery> {
    const state = await this.repo.state(linked.sessionId, linked.turnId);
    const sideEffects = state.toolCalls.some((c) => this.tools.mayHaveSideEffects(c.name, c.arguments));
    const recovery = recoveryOf({ ...state, sideEffects }, policy ?? 'rerun');
    if (recovery === 'replay') return { kind: 'replay', notice: state.notice! };
    if (recovery === 'rerun') return { kind: 'rerun' };
    const why = sideEffects ? 'a tool call that may have changed something had started' : 'its model request may have left';
    return { kind: 'notify', notice: interruptedNotice(linked.content), why };
  }
}
