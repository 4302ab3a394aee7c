import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { traceInbound } from '@nestclaw/observability';
import { instrumentDelivery } from './channel.telemetry';
import type { ChannelAdapter } from './channel.port';
import { InboundPipeline } from './inbound-pipeline.service';
import { InboundRepository } from './inbound/inbound.repository';
import type * as DiscordAdapter from './discord/discord.channel';
import type * as TelegramAdapter from './telegram/telegram.channel';

/**
 * Builds the enabled adapters from config, answers what the last run left unanswered, then starts
 * them; stops them (polling first, then runs) before the database closes.
 */
@Injectable()
export class ChannelRegistry implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Channels');
  private readonly adapters = new Map<string, ChannelAdapter>();

  constructor(
    private readonly config: ConfigService,
    private readonly pipeline: InboundPipeline,
    private readonly inbound: InboundRepository,
  ) {}

  get(id: string): ChannelAdapter | undefined {
    return this.adapters.get(id);
  }

  list(): ChannelAdapter[] {
    return [...this.adapters.values()];
  }

  /** Adds an adapter built elsewhere (tests, future plugins); call before bootstrap. */
  register(adapter: ChannelAdapter): void {
    this.adapters.set(adapter.id, instrumentDelivery(adapter));
  }

  async onApplicationBootstrap(): Promise<void> {
    const { channels } = this.config.get();
    const build = (id: string, make: () => ChannelAdapter) => {
      try {
        this.register(make());
      } catch (e) {
        this.logger.error(`${id} is enabled but cannot be set up: ${(e as Error).message}`);
      }
    };
    // Each adapter (and its SDK: telegraf, discord.js, ~9 MB) is loaded only when its channel is enabled.
    /* eslint-disable @typescript-eslint/no-require-imports */
    if (channels.telegram.enabled)
      build('telegram', () => new (require('./telegram/telegram.channel') as typeof TelegramAdapter).TelegramChannel(channels.telegram));
    if (channels.discord.enabled)
      build('discord', () => new (require('./discord/discord.channel') as typeof DiscordAdapter).DiscordChannel(channels.discord));
    /* eslint-enable @typescript-eslint/no-require-imports */
    if (this.adapters.size === 0) return;
    await this.pipeline.recover(this.list());
    for (const adapter of this.adapters.values()) {
      try {
        await adapter.start(
          (m) => traceInbound(adapter.id, () => this.pipeline.accept(adapter, m)),
          await this.inbound.lastSeen(adapter.id),
        );
      } catch (e) {
        // One platform being unreachable must not keep the gateway (or the other channels) down.
        this.logger.error(`${adapter.id} did not start: ${(e as Error).message}`);
      }
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.list().map((a) => a.stop()));
    await this.pipeline.stop();
  }
}
