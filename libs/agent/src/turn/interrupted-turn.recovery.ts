/**
 * What recovery does with a turn whose model request may already have left when the process died.
 * `rerun` (the default) asks the model again unless a call that can change something (a shell
 * command, a file write, a POST: `Tool.sideEffects`) may have started: asking again is safe where
 * nothing can happen twice, and the interrupted attempt stays in the ledger. `notify` answers every
 * such turn with a notice instead (the model is never asked twice for one message).
 */
export type InterruptedTurnPolicy = 'notify' | 'rerun';

/** What recovery knows about a turn cut short, from its stored rows. */
export interface InterruptedTurnFacts {
  /** The notice already stored as its answer (a crash came after it was written). */
  notice: string | null;
  /** Ledger rows of requests that may have left. */
  modelCalls: number;
  /** Paused for a tool approval still pending: the decision resumes it. */
  paused: boolean;
  /** A stored tool call that may have changed something (it may have started before the kill). */
  sideEffects: boolean;
}

/** `replay` the stored notice, `notify` (store and send the notice), or `rerun` the turn from its user message. */
export type Recovery = 'replay' | 'notify' | 'rerun';

export function recoveryOf(t: InterruptedTurnFacts, policy: InterruptedTurnPolicy): Recovery {
  if (t.notice !== null) return 'replay';
  // Never seen by the model (no request left), or waiting for a decision: nothing was done yet.
  if (t.paused || t.modelCalls === 0) return 'rerun';
  // Running it again could run the call again: tell the user instead.
  if (t.sideEffects) return 'notify';
  return policy === 'notify' ? 'notify' : 'rerun';
}
