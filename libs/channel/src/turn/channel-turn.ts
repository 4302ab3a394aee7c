import type { AgentEvent } from '@nestclaw/agent';

/** What a running turn shows in the chat while it runs: its start, its tokens, its requests for approval. */
export type ChatVisibleEvent = Extract<AgentEvent, { type: 'started' | 'token' | 'approval_required' }>;

/** What the delivery stage sends, or `requeue`: the gateway is stopping and the next start answers it. */
export type TurnOutcome = { kind: 'reply'; text: string; status: 'answered' | 'failed' } | { kind: 'requeue' };

/**
 * A turn in progress, handed by the turn stage to the delivery stage: its chat-visible events in the
 * order they happened, ending when the turn does, then its outcome. The turn only writes and delivery
 * only reads, so neither stage calls into the other.
 */
export interface ChannelTurn {
  events: TurnEvents;
  /** Settles after the last event; rejects only when the turn could not start (its session not found). */
  outcome: Promise<TurnOutcome>;
}

/** The events of one turn, buffered until delivery reads them (a single reader). */
export class TurnEvents implements AsyncIterable<ChatVisibleEvent> {
  private buffered: ChatVisibleEvent[] = [];
  private ended = false;
  private wake?: () => void;

  push(e: ChatVisibleEvent): void {
    if (this.ended) return;
    this.buffered.push(e);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChatVisibleEvent> {
    for (;;) {
      const batch = this.buffered;
      this.buffered = [];
      yield* batch;
      if (this.ended && !this.buffered.length) return;
      if (!this.buffered.length) await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
