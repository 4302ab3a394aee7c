import { Injectable } from '@nestjs/common';
import { Leases } from '@nestclaw/db';
import { ChannelAccess, ChannelAccessService } from '@nestclaw/security';
import { ChannelRegistry } from '../channel.registry';
import { channelLease } from '../channel-ownership.service';
import { ChannelActivityRepository } from './channel-activity.repository';
import { ChannelState, channelStateOf } from './channel-state';

export interface ChannelStatus {
  id: string;
  state: ChannelState;
  /** Why it failed, when `failed`. */
  error: string | null;
  /** The replica receiving for the channel (its `channel:<id>` lease), null when none does. */
  receiver: { replica: string; self: boolean; since: string } | null;
  lastInboundAt: string | null;
  lastOutboundAt: string | null;
  /** Strangers' pairing codes waiting for the owner's approval (`/v1/pairing`). */
  pendingPairings: number;
}

/** Every configured chat channel as an operator sees it (`GET /v1/channels`, the control UI's Channels page). */
@Injectable()
export class ChannelStatusService {
  constructor(
    private readonly registry: ChannelRegistry,
    private readonly leases: Leases,
    private readonly activity: ChannelActivityRepository,
    private readonly access: ChannelAccessService,
  ) {}

  async list(): Promise<ChannelStatus[]> {
    const local = new Map(this.registry.channelStates().map((s) => [s.channel, s]));
    const broken = new Map(this.registry.failedSetups().map((f) => [f.channel, f.error]));
    const ids = this.ids();
    if (ids.length === 0) return [];
    const [leases, activity, pending] = await Promise.all([this.leases.list(), this.activity.lastEvents(ids), this.access.pending()]);
    const leaseOf = new Map(leases.map((l) => [l.name, l]));
    const activityOf = new Map(activity.map((a) => [a.channel, a]));
    return ids.map((id) => {
      const lease = leaseOf.get(channelLease(id));
      const mine = local.get(id);
      const held = lease?.held && lease.holder ? lease : undefined;
      const error = broken.get(id) ?? mine?.error ?? null;
      const state = channelStateOf({ error, leaseHeld: !!held, ownedHere: !!mine?.owner, connectedHere: !!mine?.connected });
      const seen = activityOf.get(id);
      return {
        id,
        state,
        error,
        receiver: held ? { replica: held.holder!, self: !!mine?.owner, since: held.acquiredAt.toISOString() } : null,
        lastInboundAt: seen?.lastInboundAt?.toISOString() ?? null,
        lastOutboundAt: seen?.lastOutboundAt?.toISOString() ?? null,
        pendingPairings: pending.filter((p) => p.channel === id).length,
      };
    });
  }

  /** Who may talk to the assistant on each configured channel (`GET /v1/channels/access`). */
  allowlists(): Promise<ChannelAccess[]> {
    return Promise.all(this.ids().map((id) => this.access.accessOf(id)));
  }

  /** The configured channels: those set up, and those that could not be (shown as failed). */
  private ids(): string[] {
    return [...new Set([...this.registry.list().map((a) => a.id), ...this.registry.failedSetups().map((f) => f.channel)])].sort();
  }
}
