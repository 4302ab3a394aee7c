import type { AttemptStart, CallLedger, OpenCall } from '@nestclaw/provider';
import type { TurnRepository } from '../session/turn.repository';

/**
 * A turn's side of the `llm_calls` ledger: each attempt's `started` row is written, uncommitted,
 * once its request is ready and its connection up, and committed in the same tick as the request is
 * written (sendGated). A kill leaves both or neither, but for the instant between those two writes.
 */
export class TurnLedger implements CallLedger {
  constructor(
    private readonly sessions: TurnRepository,
    private readonly sessionId: string,
    private readonly turnId: string,
  ) {}

  open(a: AttemptStart): Promise<OpenCall> {
    return this.sessions.openCall(this.sessionId, this.turnId, a);
  }
}
