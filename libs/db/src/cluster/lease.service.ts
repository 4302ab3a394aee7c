import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { FailureThrottle } from '@nestclaw/common';
import type { DatabaseService } from '../database.service';
import { LeaseRepository, LeaseRow } from './lease.repository';
import { REPLICA_BEAT_MS, REPLICA_TTL_MS, ReplicaRegistry, SELF_FENCE_MS } from './replica.registry';

/** A lease runs out this long after its last renewal (the same 6 s after which a replica is dead). */
export const LEASE_TTL_MS = REPLICA_TTL_MS;
export type { LeaseRow } from './lease.repository';

export type LeaseLoss = 'taken' | 'fenced' | 'released';

/** The work a lease guards: started when the lease becomes this replica's, stopped when it is not anymore. */
export interface LeasedWork {
  acquired(fence: string): Promise<void> | void;
  /** Must stop the work promptly: a fenced holder has LEASE_TTL_MS - SELF_FENCE_MS (2 s) before another may take over. */
  lost(why: LeaseLoss): Promise<void> | void;
}

interface Holding {
  fence: string;
  /** Fires SELF_FENCE_MS after the last renewal was sent, unless a later renewal re-arms it. */
  selfFence?: NodeJS.Timeout;
}

/**
 * This replica's leases (issue 24, docs/adr/0016-scale-out.md): one owner at a time for work such as
 * polling a Telegram bot. All wanted leases are acquired or renewed in one statement right after
 * each replica beat (every 2 s, TTL 6 s). A holder that has not renewed for SELF_FENCE_MS (4 s;
 * database lost, process stalled) stops its work by itself, 2 s before anyone may take the lease;
 * a renewal that finds the lease taken stops it at once. A clean stop releases at once, so another
 * replica takes over on its next beat instead of after the TTL.
 */
export class Leases implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Cluster');
  private readonly repository: LeaseRepository;
  private readonly failures = new FailureThrottle('renewing leases', this.logger, { baseDelayMs: REPLICA_BEAT_MS });
  private readonly wanted = new Map<string, LeasedWork>();
  private readonly holdings = new Map<string, Holding>();
  /** Serialises renewals, starts and stops: one beat's outcome is applied before the next is asked. */
  private chain: Promise<void> = Promise.resolve();
  private renewing = false;
  private unsubscribe?: () => void;
  private stopped = false;

  constructor(
    db: DatabaseService,
    private readonly replicas: ReplicaRegistry,
  ) {
    this.repository = new LeaseRepository(db);
  }

  get replicaId(): string {
    return this.replicas.id;
  }

  /** Asks for `name` from the next beat on (call `renew()` to ask at once). */
  want(name: string, work: LeasedWork): void {
    this.wanted.set(name, work);
    this.unsubscribe ??= this.replicas.onBeat(() => void this.renew());
  }

  /** The fence under which this replica holds `name`, if it does. */
  fenceOf(name: string): string | undefined {
    return this.holdings.get(name)?.fence;
  }

  list(): Promise<LeaseRow[]> {
    return this.repository.list();
  }

  /** One acquire-or-renew statement for every wanted lease, then starts what was won and stops what was lost. */
  renew(): Promise<void> {
    if (this.renewing || this.stopped || this.wanted.size === 0) return this.chain;
    this.renewing = true;
    const sentAt = Date.now();
    return this.serially(async () => {
      try {
        const names = [...this.wanted.keys()];
        const { held, fresh } = await this.repository.acquire(this.replicas.id, names, LEASE_TTL_MS, SELF_FENCE_MS);
        // This replica's own beat is late: nothing was renewed, and nothing was lost yet (the self-fence decides).
        if (!fresh) return;
        this.failures.succeeded();
        if (this.stopped) return;
        const won = new Map(held.map((h) => [h.name, h.fence]));
        for (const name of names) {
          const fence = won.get(name);
          const had = this.holdings.get(name);
          if (fence === undefined) {
            if (had) await this.lose(name, 'taken');
          } else if (had && had.fence === fence) {
            this.armSelfFence(name, had, sentAt);
          } else {
            if (had) await this.lose(name, 'taken');
            await this.gain(name, fence, sentAt);
          }
        }
      } catch (e) {
        // Holdings stay until their self-fence fires: a failed renewal is not yet a lost lease.
        this.failures.failed(e);
      } finally {
        this.renewing = false;
      }
    });
  }

  /** Stops the work under these leases (or all), then gives them up at once for another replica's next beat. */
  release(names: readonly string[] = [...this.wanted.keys()]): Promise<void> {
    return this.serially(async () => {
      const held = names.filter((n) => this.holdings.has(n));
      for (const name of held) await this.lose(name, 'released');
      for (const name of names) this.wanted.delete(name);
      await this.repository.release(this.replicas.id, held).catch((e: unknown) => {
        this.logger.warn(`could not release ${held.join(', ')} (they expire in ${LEASE_TTL_MS} ms): ${(e as Error).message}`);
      });
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.release();
    this.stopped = true;
    this.unsubscribe?.();
  }

  private async gain(name: string, fence: string, sentAt: number): Promise<void> {
    const holding: Holding = { fence };
    this.holdings.set(name, holding);
    this.armSelfFence(name, holding, sentAt);
    this.logger.log(`holds ${name} (fence ${fence})`);
    try {
      await this.wanted.get(name)?.acquired(fence);
    } catch (e) {
      this.logger.error(`starting the work of ${name} failed: ${(e as Error).message}`);
    }
  }

  private async lose(name: string, why: LeaseLoss): Promise<void> {
    const holding = this.holdings.get(name);
    if (!holding) return;
    clearTimeout(holding.selfFence);
    this.holdings.delete(name);
    if (why !== 'released') this.logger.warn(`lost ${name} (${why === 'taken' ? 'another replica holds it' : 'not renewed in time'})`);
    try {
      await this.wanted.get(name)?.lost(why);
    } catch (e) {
      this.logger.error(`stopping the work of ${name} failed: ${(e as Error).message}`);
    }
  }

  /** The lease runs to sentAt + TTL at the earliest; the work stops at sentAt + SELF_FENCE_MS unless renewed again. */
  private armSelfFence(name: string, holding: Holding, sentAt: number): void {
    clearTimeout(holding.selfFence);
    holding.selfFence = setTimeout(
      () => {
        // Not serialised behind a renewal that hangs: fencing must not wait for the database.
        if (this.holdings.get(name) === holding) void this.lose(name, 'fenced');
      },
      Math.max(0, sentAt + SELF_FENCE_MS - Date.now()),
    );
    holding.selfFence.unref();
  }

  private serially(task: () => Promise<void>): Promise<void> {
    const next = this.chain.then(task, task);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
