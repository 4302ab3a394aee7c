import type { AttemptStart, CallLedger } from '@nestclaw/provider';
import type { TurnRepository } from '../session/turn.repository';
import type { PlannedCall } from '../session/session.types';

/**
 * A turn's side of the `llm_calls` ledger: every attempt has its row before its request leaves.
 * The statement that precedes a model call (opening the turn, storing a tool step) writes the row
 * for the attempt expected next, so the usual turn still costs two statements; only retries,
 * fallbacks and resumed turns write their own.
 */
export class TurnLedger implements CallLedger {
  private ahead?: { id: string; planned: PlannedCall };

  constructor(
    private readonly sessions: TurnRepository,
    private readonly sessionId: string,
    private readonly turnId: string,
    /** The model the next call will most likely use (the chain's first). */
    readonly planned: PlannedCall | undefined,
  ) {}

  /** The row a statement wrote ahead for the next attempt. */
  writtenAhead(id: string | undefined): void {
    this.ahead = id && this.planned ? { id, planned: this.planned } : undefined;
  }

  /** The row written ahead that no attempt used (the closing statement deletes it). */
  takeUnused(): string | undefined {
    const id = this.ahead?.id;
    this.ahead = undefined;
    return id;
  }

  async started(a: AttemptStart): Promise<string> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (!ahead) return this.sessions.startCall(this.sessionId, this.turnId, a);
    const guessed = ahead.planned.provider === a.provider && ahead.planned.model === a.model && a.attempt === 1 && !a.isFallback;
    if (!guessed) await this.sessions.correctStartedCall(ahead.id, a);
    return ahead.id;
  }
}
