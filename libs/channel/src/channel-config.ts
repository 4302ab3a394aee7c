import type { ChannelConfig, NestclawConfig } from '@nestclaw/config';

/** One adapter's section of `channels` by its name (the schema types each section under its own key). */
export function channelConfig(config: NestclawConfig, channel: string): ChannelConfig {
  return (config.channels as unknown as Record<string, ChannelConfig>)[channel];
}
