import type { FeishuChannelConfig, SlackChannelConfig } from '@nestclaw/config';
import type { ChannelAdapter } from './channel.port';
import type * as FeishuAdapter from './feishu/feishu.channel';
import type * as SlackAdapter from './slack/slack.channel';

/*
 * The Slack and Feishu adapters, for the plugins bundled with nestclaw that add them through the plugin
 * API (libs/plugin's bundled/, docs/plugins.md). Each adapter and its SDK load only when called, so a
 * gateway without the channel never holds them.
 */
/* eslint-disable @typescript-eslint/no-require-imports */

export function createSlackChannel(config: SlackChannelConfig): ChannelAdapter {
  return new (require('./slack/slack.channel') as typeof SlackAdapter).SlackChannel(config);
}

export function createFeishuChannel(config: FeishuChannelConfig): ChannelAdapter {
  return new (require('./feishu/feishu.channel') as typeof FeishuAdapter).FeishuChannel(config);
}
