import type { AttemptStart, CallLedger } from '@nestclaw/provider';
import type { TurnRepository } from '../session/turn.repository';

/**
 * A turn's side of the `llm_calls` ledger: every attempt's `started` row is written by the
 * ReliableProvider as its last step before the request is issued (after the breaker, the rate
 * limit and the prompt), so a kill can only leave a row without a request in the few microtasks
 * between this insert returning and the HTTP client writing the request. Writing it earlier (with
 * the turn's first statement) saved a round trip but left the whole prompt build in that window.
 */
export class TurnLedger implements CallLedger {
  constructor(
    private readonly sessions: TurnRepository,
    private readonly sessionId: string,
    private readonly turnId: string,
  ) {}

  started(a: AttemptStart): Promise<string> {
    return this.sessions.startCall(this.sessionId, this.turnId, a);
  }
}
