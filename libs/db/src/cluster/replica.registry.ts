import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FailureThrottle, packageRoot } from '@nestclaw/common';
import type { DatabaseService } from '../database.service';
import { ReplicaRepository, ReplicaRow } from './replica.repository';

/** How often a replica says it is alive. */
export const REPLICA_BEAT_MS = 2000;
/**
 * Not seen for this long, a replica is dead (the SQL function `nestclaw_replica_alive` says the same).
 * A replica that could not beat for SELF_FENCE_MS stops treating its holds as its own first, so an
 * owner cut off from the database has stopped before anyone else may take over.
 */
export const REPLICA_TTL_MS = 6000;
export const SELF_FENCE_MS = 4000;

/**
 * This process as one replica among those sharing the database (issue 24): its id, its row in
 * `replicas`, beaten every 2 s. Holds elsewhere (channel leases, a session's running turn) name this
 * id, and are free once the row is gone (clean stop) or stale (kill, lost database). Only the
 * gateway registers (`DbModule.forRoot({ replica: true })`); the CLI reads the table.
 */
export class ReplicaRegistry implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** New on every start: a restarted process never inherits its predecessor's holds. */
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly logger = new Logger('Cluster');
  private readonly repository: ReplicaRepository;
  private readonly failures = new FailureThrottle('beating as a replica', this.logger, { baseDelayMs: REPLICA_BEAT_MS });
  private readonly version = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  private timer: NodeJS.Timeout | undefined;
  private lastBeat = 0;
  private readonly listeners = new Set<(healthy: boolean) => void>();

  constructor(
    private readonly db: DatabaseService,
    private readonly registers: boolean,
  ) {
    this.repository = new ReplicaRepository(db);
  }

  /** Whether this replica beat recently enough that its holds are still its own. */
  get healthy(): boolean {
    return this.registers && Date.now() - this.lastBeat < SELF_FENCE_MS;
  }

  /** Called after every beat, with whether the replica is still healthy (lease holders renew here). */
  onBeat(listener: (healthy: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): Promise<ReplicaRow[]> {
    return this.repository.list();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.registers) return;
    // The embedded database is single-process (a second gateway on its home refuses to start), so any
    // other process's row is an earlier run that a kill left behind: forgetting it now frees its channel
    // leases, sessions and inbound messages at once instead of 6 s later, when it would look dead.
    if (this.db.embedded?.owned) await this.repository.forgetOtherProcesses(process.pid);
    else await this.forgetProvenDead();
    // The first beat is awaited: nothing may hold anything in this replica's name before its row exists.
    await this.beat();
    this.timer = setInterval(() => void this.beat(), REPLICA_BEAT_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (!this.registers) return;
    this.lastBeat = 0;
    await this.repository.leave(this.id).catch(() => undefined);
  }

  /**
   * Forgets replicas certainly gone although their rows are not stale yet, so what they held (channel
   * leases, sessions, inbound messages, open turns) is free at once rather than 6 s later (a gateway
   * restarted right after a kill): a replica of this host whose process no longer exists, or that had
   * this very pid (a restarted container's pid 1), and that stopped beating. The second condition costs
   * a beat's wait, only when there is such a candidate: containers sharing a hostname but not a pid
   * namespace (host networking) see each other's processes as gone, yet keep beating.
   */
  private async forgetProvenDead(): Promise<void> {
    const candidates = (await this.repository.list()).filter(
      (r) => r.alive && r.id !== this.id && r.host === hostname() && (r.pid === process.pid || !processExists(r.pid)),
    );
    if (!candidates.length) return;
    await new Promise((r) => setTimeout(r, REPLICA_BEAT_MS + 500));
    const now = new Map((await this.repository.list()).map((r) => [r.id, r.lastSeen.getTime()]));
    const dead = candidates.filter((c) => (now.get(c.id) ?? 0) <= c.lastSeen.getTime()).map((c) => c.id);
    if (!dead.length) return;
    await this.repository.forget(dead);
    this.logger.log(`forgot ${dead.length} replica(s) of this host that a kill left behind: ${dead.join(', ')}`);
  }

  private async beat(): Promise<void> {
    try {
      await this.repository.beat({ id: this.id, host: hostname(), pid: process.pid, version: this.version });
      this.lastBeat = Date.now();
      this.failures.succeeded();
    } catch (e) {
      this.failures.failed(e);
    }
    const healthy = this.healthy;
    for (const listener of this.listeners) listener(healthy);
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
