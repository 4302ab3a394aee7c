import type { DatabaseService } from '../database.service';

export interface ReplicaRow {
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: Date;
  lastSeen: Date;
  alive: boolean;
}

/** The `replicas` table: one row per running gateway (ReplicaRegistry writes it, `/v1/cluster` reads it). */
export class ReplicaRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Says this replica is alive (creates its row on the first beat) and forgets replicas gone for an
   * hour, in one statement: the only round trip a replica makes every beat on its own.
   */
  async beat(r: { id: string; host: string; pid: number; version: string }): Promise<void> {
    await this.db.query(
      `WITH gone AS (DELETE FROM replicas WHERE last_seen < now() - interval '1 hour' AND id <> $1)
       INSERT INTO replicas (id, host, pid, version) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET last_seen = now()`,
      [r.id, r.host, r.pid, r.version],
      { name: 'nestclaw_replica_beat' },
    );
  }

  /** Other processes' rows (for the embedded database, whose earlier runs are the only others). */
  async forgetOtherProcesses(pid: number): Promise<void> {
    await this.db.query(`DELETE FROM replicas WHERE pid <> $1`, [pid]);
  }

  /** Replicas proven gone (ReplicaRegistry's start-up): their holds are free at once. */
  async forget(ids: string[]): Promise<void> {
    await this.db.query(`DELETE FROM replicas WHERE id = ANY($1::text[])`, [ids]);
  }

  /** A clean stop: the row goes at once, so what this replica held is free now, not in 6 s. */
  async leave(id: string): Promise<void> {
    await this.db.query(`DELETE FROM replicas WHERE id = $1`, [id]);
  }

  async list(): Promise<ReplicaRow[]> {
    const { rows } = await this.db.query<ReplicaRow>(
      `SELECT id, host, pid, version, started_at AS "startedAt", last_seen AS "lastSeen", nestclaw_replica_alive(id) AS alive
         FROM replicas ORDER BY started_at, id`,
    );
    return rows;
  }
}
