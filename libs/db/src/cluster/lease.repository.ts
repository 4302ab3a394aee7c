import type { DatabaseService } from '../database.service';

export interface LeaseRow {
  name: string;
  /** The holding replica's id; null once released. */
  holder: string | null;
  /** Incremented on every change of holder (bigint, as text). */
  fence: string;
  acquiredAt: Date;
  expiresAt: Date;
  /** Whether the holder is alive and the lease unexpired: someone does this work right now. */
  held: boolean;
}

export interface HeldLease {
  name: string;
  fence: string;
}

export interface Acquisition {
  /** The wanted leases this replica holds after the statement, renewed or newly taken. */
  held: HeldLease[];
  /** ceil(wanted / alive replicas): how many of them this replica takes while others are alive. */
  share: number;
  /** This replica's own row was beaten recently enough to renew or take anything (else nothing changed). */
  fresh: boolean;
}

/** The `leases` table (libs/db/src/cluster/lease.service.ts keeps this replica's leases with it). */
export class LeaseRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Renews the wanted leases this replica holds and takes free ones, all in one statement per beat.
   * Nothing happens unless this replica's own row was beaten within the last `ttl - fence` ms: the
   * others call it dead `ttl` after its last beat, so it has stopped (self-fenced, `fenceMs` after
   * this statement was sent) before any of them may take what it held.
   *
   * A lease is free when it was never taken, was released, expired, or its holder is dead. Free
   * leases are taken in the order wanted, up to the fair share ceil(wanted / alive replicas) counting
   * those already held, so that several bots spread over the replicas. A lease left free for longer
   * than `fenceMs` is taken whatever the share (a replica that does not want it, e.g. one with that
   * channel disabled, still counts as alive). Never-seen names get a placeholder row (holder NULL,
   * fence 0) so that their free time can be counted. The ON CONFLICT condition repeats the test on
   * the latest row version, so two replicas racing for one lease cannot both win it.
   */
  async acquire(replica: string, names: readonly string[], ttlMs: number, fenceMs: number): Promise<Acquisition> {
    const { rows } = await this.db.query<{ name: string | null; fence: string | null; share: number; fresh: boolean }>(
      `WITH wanted AS (SELECT w.name, w.ord FROM unnest($2::text[]) WITH ORDINALITY AS w(name, ord)),
            me AS (SELECT 1 FROM replicas WHERE id = $1 AND last_seen > now() - make_interval(secs => ($3::int - $4::int) / 1000.0)),
            fair AS (SELECT ceil(cardinality($2::text[])::numeric / greatest(count(*), 1))::int AS share
                       FROM replicas WHERE nestclaw_replica_alive(id)),
            mine AS (SELECT count(*)::int AS n FROM leases l JOIN wanted w USING (name) WHERE l.holder = $1 AND l.expires_at > now()),
            free AS (SELECT w.name, l.name IS NULL AS unseen, l.expires_at, row_number() OVER (ORDER BY w.ord) AS rank
                       FROM wanted w LEFT JOIN leases l USING (name)
                      WHERE l.name IS NULL
                         OR (l.holder IS DISTINCT FROM $1 AND (l.expires_at <= now() OR NOT nestclaw_replica_alive(l.holder)))),
            candidates AS (
              SELECT w.name FROM wanted w JOIN leases l USING (name) WHERE l.holder = $1 AND EXISTS (SELECT 1 FROM me)
              UNION ALL
              SELECT f.name FROM free f, fair, mine
               WHERE EXISTS (SELECT 1 FROM me)
                 AND (f.rank <= fair.share - mine.n OR f.expires_at < now() - make_interval(secs => $4::int / 1000.0))),
            placeholders AS (
              INSERT INTO leases (name, holder, fence, expires_at)
              SELECT f.name, NULL, 0, now() FROM free f WHERE f.unseen AND f.name NOT IN (SELECT name FROM candidates)
              ON CONFLICT (name) DO NOTHING),
            taken AS (
              INSERT INTO leases AS l (name, holder, fence, acquired_at, expires_at)
              SELECT name, $1, 1, now(), now() + make_interval(secs => $3::int / 1000.0) FROM candidates
              ON CONFLICT (name) DO UPDATE SET
                fence = CASE WHEN l.holder IS NOT DISTINCT FROM $1 THEN l.fence ELSE l.fence + 1 END,
                acquired_at = CASE WHEN l.holder IS NOT DISTINCT FROM $1 THEN l.acquired_at ELSE now() END,
                holder = $1,
                expires_at = EXCLUDED.expires_at
              WHERE l.holder = $1 OR l.expires_at <= now() OR NOT nestclaw_replica_alive(l.holder)
              RETURNING l.name, l.fence::text AS fence)
       SELECT taken.name, taken.fence, fair.share, EXISTS (SELECT 1 FROM me) AS fresh FROM fair LEFT JOIN taken ON true`,
      [replica, [...names], ttlMs, fenceMs],
      { name: 'nestclaw_lease_acquire' },
    );
    return {
      held: rows.filter((r) => r.name !== null).map((r) => ({ name: r.name!, fence: r.fence! })),
      share: rows[0]?.share ?? 0,
      fresh: rows[0]?.fresh ?? false,
    };
  }

  /** Gives leases up at once (clean stop, a channel no longer wanted): the next beat of another replica takes them. */
  async release(replica: string, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.db.query(`UPDATE leases SET holder = NULL, expires_at = now() WHERE holder = $1 AND name = ANY($2::text[])`, [
      replica,
      [...names],
    ]);
  }

  async list(): Promise<LeaseRow[]> {
    const { rows } = await this.db.query<LeaseRow>(
      `SELECT name, holder, fence::text AS fence, acquired_at AS "acquiredAt", expires_at AS "expiresAt",
              (holder IS NOT NULL AND expires_at > now() AND nestclaw_replica_alive(holder)) AS held
         FROM leases ORDER BY name`,
    );
    return rows;
  }
}
