import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { instrumentDelivery } from './channel.telemetry';
import type { ChannelAdapter } from './channel.port';
import { ChannelOwnership, ChannelOwnershipState } from './channel-ownership.service';
import { InboundPipeline } from './inbound-pipeline.service';
import type * as DiscordAdapter from './discord/discord.channel';
import type * as TelegramAdapter from './telegram/telegram.channel';

/**
 * Builds the enabled adapters from config (every replica sends through them) and has each receive
 * only on the replica that owns its channel (ChannelOwnership: a lease per channel); on stop, hands
 * the channels over first, then stops the runs, before the database closes.
 */
@Injectable()
export class ChannelRegistry implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Channels');
  private readonly adapters = new Map<string, ChannelAdapter>();
  /** Enabled in config but could not be built (a bad token format, …): channel id → why. */
  private readonly setupFailures = new Map<string, string>();

  constructor(
    private readonly config: ConfigService,
    private readonly pipeline: InboundPipeline,
    private readonly ownership: ChannelOwnership,
  ) {}

  get(id: string): ChannelAdapter | undefined {
    return this.adapters.get(id);
  }

  list(): ChannelAdapter[] {
    return [...this.adapters.values()];
  }

  /** Which channels this replica receives for, and whether their connection is up (readiness, /v1/cluster). */
  channelStates(): ChannelOwnershipState[] {
    return this.ownership.states();
  }

  /** Channels enabled in config whose adapter could not be built, with the reason (/v1/channels shows them as failed). */
  failedSetups(): { channel: string; error: string }[] {
    return [...this.setupFailures].map(([channel, error]) => ({ channel, error }));
  }

  /** A channel a plugin declared but could not add (its register failed): listed as failed, with the reason. */
  registerFailure(id: string, error: string): void {
    if (!this.adapters.has(id)) this.setupFailures.set(id, error);
  }

  /**
   * Adds an adapter built elsewhere (a trusted plugin's); call before bootstrap. An id already taken is
   * refused: a plugin cannot stand in for a built-in channel or another plugin's.
   */
  register(adapter: ChannelAdapter): void {
    if (this.adapters.has(adapter.id) || this.setupFailures.has(adapter.id)) throw new Error(`channel id "${adapter.id}" is already taken`);
    this.adapters.set(adapter.id, instrumentDelivery(adapter));
  }

  /**
   * Builds the adapters (no network yet) before any module's start-up work: the scheduler's first tick,
   * in its own bootstrap, may deliver a job answer already due (a retry after a restart), and found no
   * channel when they were built later ("channel telegram is not running": retried a minute on).
   */
  onModuleInit(): void {
    const { channels } = this.config.get();
    const build = (id: string, make: () => ChannelAdapter) => {
      try {
        this.register(make());
      } catch (e) {
        this.setupFailures.set(id, (e as Error).message);
        this.logger.error(`${id} is enabled but cannot be set up: ${(e as Error).message}`);
      }
    };
    // Each adapter (and its SDK: telegraf, discord.js, ~9 MB) is loaded only when its channel is enabled.
    /* eslint-disable @typescript-eslint/no-require-imports */
    if (channels.telegram.enabled)
      build('telegram', () => new (require('./telegram/telegram.channel') as typeof TelegramAdapter).TelegramChannel(channels.telegram));
    if (channels.discord.enabled)
      build('discord', () => new (require('./discord/discord.channel') as typeof DiscordAdapter).DiscordChannel(channels.discord));
    // Slack and Feishu are added by plugins bundled with nestclaw, through the plugin API (bundled-channels.ts).
    /* eslint-enable @typescript-eslint/no-require-imports */
  }

  /** Starts receiving on the channels this replica owns. */
  async onApplicationBootstrap(): Promise<void> {
    await this.ownership.start(this.list());
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.ownership.stop();
    await this.pipeline.stop();
  }
}
