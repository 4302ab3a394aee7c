import type { AgentEvent } from '@nestclaw/agent';

/**
 * What a coding CLI is doing now (a tool it runs, its screen's last lines): it replaces the preview's
 * text, where an agent's tokens are appended. Channel-local: agents have no such event.
 */
export type ProgressEvent = { type: 'progress'; text: string };

/** What a running turn shows in the chat while it runs: its start, its tokens or progress, its requests for approval. */
export type ChatVisibleEvent = Extract<AgentEvent, { type: 'started' | 'token' | 'approval_required' }> | ProgressEvent;

/**
 * What the delivery stage sends, or `requeue`: the gateway is stopping and the next start answers it.
 * `longAs: 'file'`: a reply too long for a few messages goes as a short head plus a document, where
 * the platform can send one (a CLI's answer: a log, a diff, a whole file).
 */
export type TurnOutcome = { kind: 'reply'; text: string; status: 'answered' | 'failed'; longAs?: 'file' } | { kind: 'requeue' };

/**
 * A turn in progress, handed by the turn stage to the delivery stage: its chat-visible events in the
 * order they happened, ending when the turn does, then its outcome. The turn only writes its events
 * and never knows who shows them; delivery only reads them and never drives the turn.
 */
export interface ChannelTurn {
  events: TurnEvents;
  /** Settles after the last event; rejects only when the turn could not start (the chat's current session could not be read). */
  outcome: Promise<TurnOutcome>;
}

/**
 * The events of one turn for its one reader. Events that come before the reader starts are kept and
 * handed over first; after that each is handed over as it happens, on the turn's own call (no queue
 * or extra tick per token, so a preview costs what it did when the runner called it directly).
 */
export class TurnEvents {
  private buffered: ChatVisibleEvent[] = [];
  private reader?: (e: ChatVisibleEvent) => void;
  private ended = false;
  private onEnd?: () => void;

  push(e: ChatVisibleEvent): void {
    if (this.ended) return;
    if (this.reader) this.handOver(this.reader, e);
    else this.buffered.push(e);
  }

  end(): void {
    this.ended = true;
    this.onEnd?.();
  }

  /** Hands every event to `reader` in order; resolves once the turn has ended. */
  read(reader: (e: ChatVisibleEvent) => void): Promise<void> {
    const earlier = this.buffered;
    this.buffered = [];
    this.reader = reader;
    // A turn may have ended before its reader came (a stored answer replayed): its events still count.
    for (const e of earlier) this.handOver(reader, e);
    return this.ended ? Promise.resolve() : new Promise((resolve) => (this.onEnd = resolve));
  }

  private handOver(reader: (e: ChatVisibleEvent) => void, e: ChatVisibleEvent): void {
    try {
      reader(e);
    } catch {
      // what the chat shows is best effort; it must never break the turn
    }
  }
}
