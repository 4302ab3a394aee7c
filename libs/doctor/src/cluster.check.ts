import { Injectable } from '@nestjs/common';
import { Leases, ReplicaRegistry } from '@nestclaw/db';
import type { DoctorCheck } from './doctor.service';

/** The doctor's cluster section: replicas sharing the database, and who owns which lease (issue 24). */
@Injectable()
export class ClusterCheck {
  constructor(
    private readonly replicas: ReplicaRegistry,
    private readonly leases: Leases,
  ) {}

  /** The replicas sharing the database and who owns which lease (issue 24); nothing when no gateway ever ran. */
  async run(): Promise<DoctorCheck[]> {
    try {
      const [replicas, leases] = await Promise.all([this.replicas.list(), this.leases.list()]);
      const alive = replicas.filter((r) => r.alive);
      const checks: DoctorCheck[] = [];
      if (replicas.length)
        checks.push({
          name: 'replicas',
          status: 'ok',
          message: `${alive.length} alive${alive.length ? `: ${alive.map((r) => `${r.id} (v${r.version})`).join(', ')}` : ''}`,
        });
      for (const l of leases) {
        const orphaned = !l.held && alive.length > 0;
        checks.push({
          name: `lease ${l.name}`,
          status: orphaned ? 'warn' : 'ok',
          message: l.held ? `held by ${l.holder} (fence ${l.fence}, until ${l.expiresAt.toISOString()})` : 'not held',
          ...(orphaned
            ? { fix: 'a replica takes it within one beat (2 s); if it stays free, check that a gateway has this channel enabled' }
            : {}),
        });
      }
      return checks;
    } catch {
      return []; // the database check above says why
    }
  }
}
