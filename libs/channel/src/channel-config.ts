import { ChannelConfig, isBuiltInChannel, NestclawConfig, pluginChannelConfig } from '@nestclaw/config';

/**
 * One adapter's section of `channels` by its name (the schema types each section under its own key);
 * for a channel a plugin added, the defaults with its access section (`channels.plugins.<id>`).
 */
export function channelConfig(config: NestclawConfig, channel: string): ChannelConfig {
  if (isBuiltInChannel(channel)) return (config.channels as unknown as Record<string, ChannelConfig>)[channel];
  return pluginChannelConfig(Object.hasOwn(config.channels.plugins, channel) ? config.channels.plugins[channel] : undefined);
}
