import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import type { HoldOutcome } from './session.types';

/** The answer of a statement that would take a session's hold while another live replica's turn has it. */
export interface SessionBusy {
  busyWith: string;
}

/**
 * The session's hold (one turn per session across replicas; docs/adr/0016-scale-out.md, "One turn per session"), as one
 * multi-column SET: its sub-SELECT sees the row's newest version once, whoever committed last. Free for `me` when
 * held by this replica (its lane orders its own turns), or not held or held by a dead replica, with no other
 * replica's waiter next in line (a place in line lapses 2 s after its waiter last asked). Taking clears the place
 * in line; a busy answer takes it when it is open. `more` are columns set only when the hold is taken.
 */
export function takeOrQueue(me: string, turnId: string, more: [column: string, value: string][] = []): string {
  const claimable = `sessions.turn_next IS NULL OR sessions.turn_next = ${me} OR sessions.turn_next_at < now() - interval '2 seconds'`;
  const free = `CASE WHEN sessions.turn_replica = ${me} THEN true
                     WHEN sessions.turn_replica IS NOT NULL AND nestclaw_replica_alive(sessions.turn_replica) THEN false
                     ELSE ${claimable} END`;
  const columns = ['turn_replica', 'turn_id', 'turn_since', 'turn_next', 'turn_next_at', ...more.map(([c]) => c)];
  const values = [
    `CASE WHEN f.free THEN ${me} ELSE sessions.turn_replica END`,
    `CASE WHEN f.free THEN ${turnId}::uuid ELSE sessions.turn_id END`,
    `CASE WHEN f.free THEN now() ELSE sessions.turn_since END`,
    `CASE WHEN NOT f.claimable THEN sessions.turn_next WHEN f.free THEN NULL ELSE ${me} END`,
    `CASE WHEN NOT f.claimable THEN sessions.turn_next_at WHEN f.free THEN NULL ELSE now() END`,
    ...more.map(([c, v]) => `CASE WHEN f.free THEN ${v} ELSE sessions.${c} END`),
  ];
  return `(${columns.join(', ')}) = (SELECT ${values.join(',\n  ')} FROM (SELECT ${free} AS free, ${claimable} AS claimable) f)`;
}

/**
 * After `s` (RETURNING `opened`) took the hold from another replica (dead: else it would not be free), the turn that
 * replica ran (`o`, the row as this statement's snapshot saw it) is marked interrupted with its `started` model calls,
 * as start-up recovery would; not one paused for a pending approval (its decision resumes it), nor the turn `turnId`
 * itself (resumed or run again here). The EXISTS gates are one-time filters: the usual statement scans nothing.
 */
export function interruptTakenOver(me: string, turnId: string): string {
  return `
      ), i AS (
        UPDATE messages SET status = 'interrupted'
         WHERE session_id = $1 AND turn_id = (SELECT turn_id FROM o) AND status = 'pending'
           AND EXISTS (SELECT 1 FROM o WHERE o.turn_replica <> ${me} AND o.turn_id <> ${turnId}::uuid)
           AND EXISTS (SELECT 1 FROM s WHERE s.opened)
           AND NOT EXISTS (SELECT 1 FROM tool_approvals a WHERE a.turn_id = messages.turn_id AND a.status = 'pending')
        RETURNING turn_id
      ), ic AS (
        UPDATE llm_calls SET status = 'interrupted', error_code = 'process_exited'
         WHERE session_id = $1 AND turn_id = (SELECT turn_id FROM o) AND status = 'started' AND EXISTS (SELECT 1 FROM i)`;
}

/**
 * SQL of the session's hold (docs/adr/0016-scale-out.md): the fragments `openTurn` takes it with, taking
 * and releasing it on their own, and the start-up recovery that knows which turns another replica runs.
 */
@Injectable()
export class SessionHoldRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Takes the session's hold for a turn that opens without `openTurn` (resumed after an approval, run
   * again after a crash) or for `/compact`: taken, or busy with another live replica's turn. A session
   * that no longer exists has nothing to hold: taken.
   */
  async takeHold(sessionId: string, turnId: string, replica: string): Promise<HoldOutcome> {
    const { rows } = await this.db.query<{ opened: boolean; holder: string | null }>(
      `WITH o AS (
         SELECT turn_replica, turn_id FROM sessions WHERE id = $1
       ), s AS (
         UPDATE sessions SET ${takeOrQueue('$3', '$2')} WHERE id = $1
         RETURNING coalesce(turn_replica = $3 AND turn_id = $2, false) AS opened, coalesce(turn_replica, turn_next) AS holder${interruptTakenOver('$3', '$2')}
       )
       SELECT opened, holder FROM s`,
      [sessionId, turnId, replica],
    );
    const row = rows[0];
    return !row || row.opened ? { taken: true } : { taken: false, holder: row.holder! };
  }

  /** Releases the hold a turn of this replica took, when its closing statement did not (error, pause, a settled turn). */
  async releaseHold(sessionId: string, turnId: string, replica: string): Promise<void> {
    await this.db.query(
      `UPDATE sessions SET turn_replica = NULL, turn_id = NULL, turn_since = NULL WHERE id = $1 AND turn_replica = $3 AND turn_id = $2`,
      [sessionId, turnId, replica],
    );
  }

  /**
   * At start-up: turns left open by a crash are marked interrupted. Returns how many. Not a turn a live
   * replica is running (the session's hold names that turn and a replica alive, or this one), nor one
   * paused for a pending tool approval: it resumes when the approval is decided. Holds of replicas no longer
   * alive (stale, or forgotten at start-up as proven gone) are released in the same statement.
   */
  async interruptOpenTurns(me: string): Promise<{ turns: number; calls: number }> {
    // A call row still `started` belongs to a turn that never closed: its attempt died with the process.
    const { rows } = await this.db.query<{ turns: string; calls: string }>(
      `WITH t AS (
         UPDATE messages m SET status = 'interrupted' FROM sessions s
          WHERE m.status = 'pending' AND s.id = m.session_id
            AND NOT coalesce(s.turn_id = m.turn_id AND (s.turn_replica = $1 OR nestclaw_replica_alive(s.turn_replica)), false)
            AND NOT EXISTS (SELECT 1 FROM tool_approvals a WHERE a.turn_id = m.turn_id AND a.status = 'pending')
         RETURNING m.session_id, m.turn_id
       ), h AS (
         UPDATE sessions SET turn_replica = NULL, turn_id = NULL, turn_since = NULL
          WHERE turn_replica IS NOT NULL AND turn_replica <> $1 AND NOT nestclaw_replica_alive(turn_replica)
       ), c AS (
         UPDATE llm_calls SET status = 'interrupted', error_code = 'process_exited'
          WHERE status = 'started' AND session_id IN (SELECT session_id FROM t) AND turn_id IN (SELECT turn_id FROM t)
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM t) AS turns, (SELECT count(*) FROM c) AS calls`,
      [me],
    );
    return { turns: Number(rows[0].turns), calls: Number(rows[0].calls) };
  }
}
