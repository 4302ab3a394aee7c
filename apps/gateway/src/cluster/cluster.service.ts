import { Injectable } from '@nestjs/common';
import { ChannelRegistry } from '@nestclaw/channel';
import { Leases, ReplicaRegistry } from '@nestclaw/db';

/** The replicas sharing this database and who holds which lease (issue 24), as `/v1/cluster` shows them. */
@Injectable()
export class ClusterService {
  constructor(
    private readonly replicas: ReplicaRegistry,
    private readonly leases: Leases,
    private readonly channels: ChannelRegistry,
  ) {}

  async view() {
    const [replicas, leases] = await Promise.all([this.replicas.list(), this.leases.list()]);
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
    };
  }
}
