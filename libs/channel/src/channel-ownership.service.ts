import { Injectable, Logger } from '@nestjs/common';
import { LeaseLoss, Leases } from '@nestclaw/db';
import { recordLeaseChange, traceInbound } from '@nestclaw/observability';
import type { ChannelAdapter } from './channel.port';
import { InboundPipeline } from './inbound-pipeline.service';
import { InboundRepository } from './inbound/inbound.repository';

/**
 * While this replica owns a channel, how often it looks for messages a dead replica left unanswered.
 * The first look is at the takeover; this catches a predecessor that stopped cleanly only after the
 * takeover (its row goes last) or a non-owner replica that died while answering.
 */
const RECOVERY_SWEEP_MS = 10_000;

/** The lease that says which replica receives for a channel. */
export const channelLease = (channelId: string) => `channel:${channelId}`;

export interface ChannelOwnershipState {
  channel: string;
  lease: string;
  /** This replica holds the lease: it, and only it, receives for the channel. */
  owner: boolean;
  /** Owner and connected to the platform (polling, or the gateway connection up). */
  connected: boolean;
  fence?: string;
  /** Why the last start on this replica failed (cleared by the next start or loss of the lease). */
  error?: string;
}

/**
 * One receiver per channel connection across replicas (issue 24): a Telegram bot is polled, a
 * Discord bot's gateway connection opened, only on the replica holding `channel:<id>`. Every replica
 * keeps its adapters for sending (a reply or job output is delivered wherever its turn ran). On
 * takeover the new owner first answers what a dead replica left, then starts receiving; when the
 * lease is lost (taken, self-fenced) receiving stops at once, before another replica may start.
 */
@Injectable()
export class ChannelOwnership {
  private readonly logger = new Logger('Channels');
  private readonly adapters = new Map<string, ChannelAdapter>();
  /** Channels owned now, each with the token of its ownership period (a start still running checks it). */
  private readonly owned = new Map<string, object>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly started = new Set<string>();
  private readonly failures = new Map<string, string>();
  private sweep?: NodeJS.Timeout;

  constructor(
    private readonly leases: Leases,
    private readonly pipeline: InboundPipeline,
    private readonly inbound: InboundRepository,
  ) {}

  /** Asks for every channel's lease and takes those free now (the rest on later beats). */
  async start(adapters: ChannelAdapter[]): Promise<void> {
    for (const adapter of adapters) {
      this.adapters.set(adapter.id, adapter);
      this.leases.want(channelLease(adapter.id), {
        acquired: (fence) => this.receive(adapter, fence),
        lost: (why) => this.stopReceiving(adapter, why),
      });
    }
    if (adapters.length === 0) return;
    await this.leases.renew();
    this.sweep = setInterval(() => void this.recover(), RECOVERY_SWEEP_MS);
    this.sweep.unref();
  }

  /** Stops receiving, then hands the leases over at once (another replica takes them on its next beat). */
  async stop(): Promise<void> {
    clearInterval(this.sweep);
    await this.leases.release([...this.adapters.keys()].map(channelLease));
  }

  states(): ChannelOwnershipState[] {
    return [...this.adapters.values()].map((a) => {
      const lease = channelLease(a.id);
      const owner = this.owned.has(a.id);
      return {
        channel: a.id,
        lease,
        owner,
        connected: owner && (a.connected ?? this.started.has(a.id)),
        fence: this.leases.fenceOf(lease),
        ...(this.failures.has(a.id) ? { error: this.failures.get(a.id) } : {}),
      };
    });
  }

  private receive(adapter: ChannelAdapter, fence: string): void {
    const period = {};
    this.owned.set(adapter.id, period);
    recordLeaseChange(channelLease(adapter.id), 'acquired');
    this.logger.log(`receiving for ${adapter.id} on this replica (fence ${fence})`);
    // Not awaited by the lease's beat: a slow platform must not delay the renewals.
    const run = (async () => {
      await this.recoverFor([adapter]);
      if (this.owned.get(adapter.id) !== period) return;
      try {
        await adapter.start(
          (m) => traceInbound(adapter.id, () => this.pipeline.accept(adapter, m)),
          await this.inbound.lastSeen(adapter.id),
        );
        this.started.add(adapter.id);
        this.failures.delete(adapter.id);
      } catch (e) {
        this.failures.set(adapter.id, (e as Error).message);
        // One platform being unreachable must not keep the gateway (or the other channels) down.
        this.logger.error(`${adapter.id} did not start: ${(e as Error).message}`);
      }
      // Lost while starting: the stop may have run before the start began.
      if (this.owned.get(adapter.id) !== period) await adapter.stop();
    })();
    this.starting.set(adapter.id, run);
  }

  private async stopReceiving(adapter: ChannelAdapter, why: LeaseLoss): Promise<void> {
    this.owned.delete(adapter.id);
    this.started.delete(adapter.id);
    this.failures.delete(adapter.id);
    recordLeaseChange(channelLease(adapter.id), why);
    await adapter.stop().catch((e: unknown) => this.logger.error(`${adapter.id} did not stop cleanly: ${(e as Error).message}`));
    await this.starting.get(adapter.id);
    if (why !== 'released') this.logger.warn(`stopped receiving for ${adapter.id}: another replica takes over`);
  }

  private recover(): Promise<void> {
    return this.recoverFor([...this.owned.keys()].map((id) => this.adapters.get(id)!));
  }

  private async recoverFor(adapters: ChannelAdapter[]): Promise<void> {
    if (adapters.length === 0) return;
    try {
      await this.pipeline.recover(adapters);
    } catch (e) {
      this.logger.warn(`could not look for messages left unanswered: ${(e as Error).message}`);
    }
  }
}
