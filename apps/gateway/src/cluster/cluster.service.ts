import { Injectable } from '@nestjs/common';
import { ChannelRegistry } from '@nestclaw/channel';
import { Leases, ReplicaRegistry } from '@nestclaw/db';
import { MemoryStatusService } from '@nestclaw/memory';

/** The replicas sharing this database, who holds which lease and how far each memory index lags (issue 24), as `/v1/cluster` shows them. */
@Injectable()
export class ClusterService {
  constructor(
    private readonly replicas: ReplicaRegistry,
    private readonly leases: Leases,
    private readonly channels: ChannelRegistry,
    private readonly memory: MemoryStatusService,
  ) {}

  async view() {
    const [replicas, leases, indexes] = await Promise.all([this.replicas.list(), this.leases.list(), this.memory.indexes()]);
    return {
      self: this.replicas.id,
      replicas: replicas.map((r) => ({ ...r, self: r.id === this.replicas.id })),
      leases: leases.map((l) => ({
        name: l.name,
        holder: l.held ? l.holder : null,
        fence: l.fence,
        acquiredAt: l.acquiredAt,
        expiresAt: l.expiresAt,
      })),
      channels: this.channels.channelStates(),
      // Each replica's memory index: entries of the change feed it has not applied, and the oldest one's age.
      memoryIndexes: indexes,
    };
  }
}
