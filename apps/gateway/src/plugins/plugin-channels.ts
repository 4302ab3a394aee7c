import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ChannelRegistry } from '@nestclaw/channel';
import { PluginService } from '@nestclaw/plugin';

/**
 * Hands the channel adapters trusted plugins added to the channel registry. Runs after both modules' init
 * (the root module's providers come last) and before any bootstrap, when the registry starts its channels.
 */
@Injectable()
export class PluginChannels implements OnModuleInit {
  private readonly logger = new Logger('Plugins');

  constructor(
    private readonly plugins: PluginService,
    private readonly channels: ChannelRegistry,
  ) {}

  onModuleInit(): void {
    for (const adapter of this.plugins.contributedChannels()) {
      try {
        this.channels.register(adapter);
      } catch (e) {
        this.logger.error(`a plugin's channel was not added: ${(e as Error).message}`);
      }
    }
    // A plugin whose register failed adds no channel: its declared channels are listed as failed (/v1/channels).
    for (const p of this.plugins.status())
      if (p.state === 'failed' && p.error) for (const id of p.contributes?.channels ?? []) this.channels.registerFailure(id, p.error);
  }
}
