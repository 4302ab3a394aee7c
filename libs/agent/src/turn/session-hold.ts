import { Injectable, Logger } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { DatabaseNotifications, ReplicaRegistry } from '@nestclaw/db';
import { recordCrossReplicaWait } from '@nestclaw/observability';
import { SessionHoldRepository, type SessionBusy } from '../session/session-hold.repository';

/**
 * How often a waiter asks again without a wake-up (a notification lost while the listener reconnected;
 * PGlite, which has no LISTEN). Asking also keeps the waiter's place in line, which lapses after 2 s.
 */
export const ASK_AGAIN_MS = 250;

const isBusy = (r: unknown): r is SessionBusy => typeof r === 'object' && r !== null && 'busyWith' in r;

/**
 * Part of the session's lane (admit): one turn at a time per session across replicas. The lane orders
 * this process's turns of a session; the hold on the session row (`sessions.turn_replica`, taken by the
 * statement that opens the turn, released by the one that closes it) orders them across replicas. A
 * turn that finds the session held by another live replica waits: woken by the release (a NOTIFY, sent
 * only when someone waits), asking again every 250 ms meanwhile, for as long as that replica lives and
 * holds it — what a turn waits behind another in one process — up to the longest a turn can hold it
 * (an approval's timeout plus the model timeout budget), then refused with `conflict`. Order among
 * waiters: arrival order within a replica (the lane lets one turn per session wait); across replicas
 * the first waiter to ask while the session is busy goes next (its place in line), then the next to ask.
 */
@Injectable()
export class SessionHold {
  private readonly logger = new Logger('Agent');
  /** Sessions this replica holds that no closing statement released yet: session → turn. */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly holds: SessionHoldRepository,
    private readonly replicas: ReplicaRegistry,
    private readonly notifications: DatabaseNotifications,
    private readonly config: ConfigService,
  ) {}

  /** The id the holds of this process name. */
  get replica(): string {
    return this.replicas.id;
  }

  /**
   * Runs `attempt` (a statement that takes the hold, or answers which replica is busy with the session)
   * until it takes it; a result other than null counts as taken. Throws `cancelled` when `signal` aborts
   * while waiting, `conflict` past the bound.
   */
  async take<T>(sessionId: string, turnId: string, attempt: () => Promise<T | SessionBusy>, signal?: AbortSignal): Promise<T> {
    const first = await attempt();
    if (!isBusy(first)) return this.taken(sessionId, turnId, first);
    const since = Date.now();
    const boundMs = this.boundMs();
    this.logger.log(`session ${sessionId} is busy on replica ${first.busyWith} (a turn running, or waiting first): waiting`);
    let woken = false;
    let wake: (() => void) | undefined;
    const stopListening = this.notifications.on('session_turns', () => {
      woken = true;
      wake?.();
    });
    try {
      for (let busy = first; ;) {
        if (signal?.aborted) {
          recordCrossReplicaWait((Date.now() - since) / 1000, 'cancelled');
          throw new NestclawError('cancelled', 'The request was cancelled while its session was busy with another turn');
        }
        if (Date.now() - since >= boundMs) {
          recordCrossReplicaWait((Date.now() - since) / 1000, 'conflict');
          throw busyTooLong(sessionId, busy.busyWith, boundMs);
        }
        if (!woken)
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              signal?.removeEventListener('abort', done);
              wake = undefined;
              resolve();
            };
            const timer = setTimeout(done, ASK_AGAIN_MS);
            signal?.addEventListener('abort', done, { once: true });
            wake = done;
          });
        woken = false;
        const r = await attempt();
        if (!isBusy(r)) {
          this.logger.log(`session ${sessionId} is free again after ${Date.now() - since} ms`);
          recordCrossReplicaWait((Date.now() - since) / 1000, 'taken');
          return this.taken(sessionId, turnId, r);
        }
        busy = r;
      }
    } finally {
      stopListening();
    }
  }

  /**
   * Takes the hold for a turn that opens without `openTurn` (resumed after its approval, run again after a
   * crash) or for `/compact`, waiting as `take` does: one statement of its own, on those paths only.
   */
  async takeFor(sessionId: string, turnId: string, signal?: AbortSignal): Promise<void> {
    await this.take(
      sessionId,
      turnId,
      async () => {
        const r = await this.holds.takeHold(sessionId, turnId, this.replica);
        return r.taken ? true : { busyWith: r.holder };
      },
      signal,
    );
  }

  /** The closing statement released the hold of `turnId` (TurnRepository.recordProgress with `close`). */
  closed(sessionId: string, turnId: string): void {
    if (this.held.get(sessionId) === turnId) this.held.delete(sessionId);
  }

  /**
   * At start-up: turns left open by a crash are marked interrupted (one paused for an approval resumes on its
   * decision); never one another live replica is running now (its hold on the session names it). Replicas
   * proven gone were forgotten by ReplicaRegistry's start just before, so their turns count as left.
   */
  interruptLeftovers(): Promise<{ turns: number; calls: number }> {
    return this.holds.interruptOpenTurns(this.replica);
  }

  /**
   * When the session's lane moves on: releases a hold no closing statement released (an error before
   * close, a turn paused for an approval with nobody waiting, a settled turn, `/compact`). One statement,
   * only on those paths: no hold is left set while this replica lives, unless the database is unreachable
   * then (the next turn of the session here takes it again; another replica waits up to the bound).
   */
  async releaseLeftover(sessionId: string): Promise<void> {
    const turnId = this.held.get(sessionId);
    if (turnId === undefined) return;
    this.held.delete(sessionId);
    await this.holds
      .releaseHold(sessionId, turnId, this.replica)
      .catch((e: unknown) => this.logger.warn(`could not release session ${sessionId}: ${(e as Error).message}`));
  }

  private taken<T>(sessionId: string, turnId: string, r: T): T {
    if (r !== null) this.held.set(sessionId, turnId);
    return r;
  }

  /** The longest a live replica's turn can hold a session: waiting for an approval, then the model's timeout budget. */
  private boundMs(): number {
    const c = this.config.get();
    return c.tools.approval.timeout + c.providers.timeout_budget;
  }
}

function busyTooLong(sessionId: string, holder: string, boundMs: number): NestclawError {
  return new NestclawError(
    'conflict',
    `Session "${sessionId}" has been busy with a turn on replica ${holder} for more than ${Math.round(boundMs / 1000)} s. ` +
      'Send the message again later; if this persists, check that replica (GET /v1/cluster, nestclaw doctor).',
  );
}
