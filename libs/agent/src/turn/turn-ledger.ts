import type { AttemptStart, CallLedger, LlmCallRecord, OpenCall } from '@nestclaw/provider';
import type { AuditEntry } from '@nestclaw/tool';
import type { TurnRepository } from '../session/turn.repository';
import type { NewMessage } from '../session/session.types';

/**
 * A turn's writes between its opening and closing statements. The `llm_calls` ledger: each attempt's
 * `started` row is written, uncommitted, once its request is ready and its connection up, and
 * committed in the same tick as the request is written (sendGated). A kill leaves both or neither,
 * but for the instant between those two writes. And the turn's progress (tool steps, summarisation
 * calls), stored so a paused or crashed turn can be resumed or recovered from its rows.
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

  /** Stores transcript rows, call records and tool runs' audit entries of the turn so far (it stays open). */
  record(messages: NewMessage[], calls: LlmCallRecord[], audit: AuditEntry[] = []): Promise<void> {
    return this.sessions.recordProgress({ sessionId: this.sessionId, turnId: this.turnId, messages, calls, audit });
  }
}
