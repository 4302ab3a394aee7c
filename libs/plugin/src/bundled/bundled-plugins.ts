import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChannelAdapter, createFeishuChannel, createSlackChannel } from '@nestclaw/channel';
import { packageRoot } from '@nestclaw/common';
import type { NestclawConfig } from '@nestclaw/config';
import type { DiscoveredPlugin } from '../discovery/plugin.discovery';
import { pluginManifestSchema } from '../manifest/plugin-manifest.schema';

let version: string | undefined;
const nestclawVersion = () =>
  (version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version);

/**
 * A channel shipped with nestclaw as a trusted (Track A) plugin: it registers its adapter through the
 * same `registerChannel` a third-party plugin uses, so the plugin API is what the built-in platforms are
 * built on, not a side door. Its settings stay under `channels.<id>` in config.
 */
function channelPlugin(id: string, description: string, create: () => ChannelAdapter): DiscoveredPlugin {
  return {
    name: id,
    dir: '(bundled with nestclaw)',
    origin: 'bundled',
    enabled: true,
    trusted: true,
    config: {},
    manifest: pluginManifestSchema.parse({
      name: id,
      version: nestclawVersion(),
      description,
      entry: 'bundled',
      track: 'trusted',
      contributes: { channels: [id] },
    }),
    register: (api) => api.registerChannel(create()),
  };
}

/**
 * The plugins bundled with nestclaw that the config enables (Slack and Feishu/Lark, when their channel
 * is enabled), ahead of the plugins found on disk; one of those with a bundled plugin's name is not used.
 */
export function withBundledPlugins(config: NestclawConfig, found: DiscoveredPlugin[]): DiscoveredPlugin[] {
  const { slack, feishu } = config.channels;
  const bundled = [
    ...(slack.enabled ? [channelPlugin('slack', 'Slack in Socket Mode (docs/slack.md)', () => createSlackChannel(slack))] : []),
    ...(feishu.enabled
      ? [channelPlugin('feishu', "Feishu/Lark over the SDK's long connection (docs/feishu.md)", () => createFeishuChannel(feishu))]
      : []),
  ];
  const taken = new Set(bundled.map((b) => b.name));
  return [
    ...bundled,
    ...found.map((p) => (taken.has(p.name) ? { ...p, error: `the name ${p.name} is taken by a plugin bundled with nestclaw` } : p)),
  ];
}
