import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { DatabaseNotifications, EventPayload } from '@nestclaw/db';
import { Approval, ApprovalService } from '@nestclaw/tool';

/** Which turn to stop: every turn of a session, or one turn of it. */
export interface CancelTarget {
  sessionId: string;
  turnId?: string;
}

/** A turn running in this process, as the cancellation registry knows it. */
export interface TrackedTurn {
  /** Aborted by the caller's own signal or by a cancel from any replica. */
  readonly signal: AbortSignal;
  /** Names the turn once known (a new session gets its id when the turn opens). */
  identify(sessionId: string, turnId?: string): void;
  end(): void;
}

interface Entry {
  controller: AbortController;
  sessionId?: string;
  turnId?: string;
}

/**
 * What reaches a turn from outside its run, from any replica (issue 24): a cancel stops it, a
 * decided approval continues it.
 *
 * Cancel: every turn of this process registers here for its lifetime; a cancel (`/stop`, a
 * WebSocket cancel, `POST /v1/sessions/:id/cancel`) is published as a `turn_cancel` event, which
 * reaches this process at once and every other replica through LISTEN/NOTIFY (within milliseconds),
 * and each aborts the matching turns it runs. Idempotent: a cancel for a turn that already ended, or
 * runs nowhere, matches nothing.
 *
 * Continue: ApprovalService hands this replica the decisions it is to continue (exactly once across
 * replicas, see there); one that no run here was waiting for is resumed from the database.
 */
@Injectable()
export class TurnControl implements OnModuleDestroy {
  private readonly running = new Set<Entry>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly notifications: DatabaseNotifications,
    private readonly approvals: ApprovalService,
  ) {
    this.unsubscribe = notifications.subscribe('turn_cancel', (e) => this.abortHere(e));
  }

  /** Calls `resume` with each decision this replica must continue and no run here was waiting for (restart, client gone, asker dead). */
  onUndeliveredDecision(resume: (approval: Approval) => void): void {
    this.approvals.events.on('decided', ({ approval, delivered }) => {
      // A coding CLI's prompt (the CLI bridge, tool `cli:<name>`) has no agent turn to resume: its
      // exchange waits on it or is gone, and the CLI's screen shows the question until someone answers.
      if (!delivered && !approval.tool.startsWith('cli:')) resume(approval);
    });
  }

  /** At start-up, once leftovers are interrupted: expires overdue approvals, re-arms the rest, takes orphaned decisions. */
  recoverApprovals(): Promise<void> {
    return this.approvals.recover();
  }

  track(callerSignal?: AbortSignal): TrackedTurn {
    const entry: Entry = { controller: new AbortController() };
    const follow = () => entry.controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) follow();
    else callerSignal?.addEventListener('abort', follow, { once: true });
    this.running.add(entry);
    return {
      signal: entry.controller.signal,
      identify: (sessionId, turnId) => {
        entry.sessionId = sessionId;
        entry.turnId = turnId ?? entry.turnId;
      },
      end: () => {
        callerSignal?.removeEventListener('abort', follow);
        this.running.delete(entry);
      },
    };
  }

  /** Asks every replica (this one at once) to stop the target's turns. */
  cancel(target: CancelTarget): Promise<void> {
    return this.notifications.publish('turn_cancel', { sessionId: target.sessionId, turnId: target.turnId ?? null });
  }

  /** Whether a turn of the session runs in this process. */
  runsHere(sessionId: string): boolean {
    for (const e of this.running) if (e.sessionId === sessionId) return true;
    return false;
  }

  private abortHere(e: EventPayload): void {
    for (const entry of this.running) {
      if (entry.sessionId !== e.sessionId) continue;
      if (e.turnId && entry.turnId && entry.turnId !== e.turnId) continue;
      entry.controller.abort(new Error('cancelled'));
    }
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}
