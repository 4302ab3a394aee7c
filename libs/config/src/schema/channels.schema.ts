import { z } from 'zod';
import { duration, secret } from './field-types';

const idList = z.array(z.union([z.string(), z.number()]).transform(String)).default([]);

/** One chat platform (issue 5). Strangers are refused unless paired; groups need the allowlist and a mention. */
const channelSchema = z.strictObject({
  enabled: z.boolean().default(false),
  token: secret(z.string()).optional(),
  /** Another Bot API / REST root (self-hosted Telegram Bot API server; tests use a local fake). */
  api_root: z.string().optional(),
  allow_from: idList,
  group_policy: z.enum(['allowlist', 'open', 'disabled']).default('allowlist'),
  require_mention: z.boolean().default(true),
  /** Who may press approval buttons and use /approve, /deny (default: allow_from from config; paired senders may chat, not approve). */
  approvers: z.array(z.union([z.string(), z.number()]).transform(String)).optional(),
  /** Largest media file accepted; bigger ones are refused with a reply. */
  max_file_bytes: z
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** How often a streamed reply's preview message is edited. */
  stream_edit_interval: duration.default(1000),
  /** Long-poll timeout (Telegram getUpdates), seconds. */
  poll_timeout: z.number().int().min(0).max(50).default(25),
});
export type ChannelConfig = z.output<typeof channelSchema>;

/**
 * Feishu / Lark (issue 27): a self-built app receiving over the SDK's long connection, so no public
 * URL is needed. Same access policy as the other channels; ids in `allow_from` are open_ids (`ou_…`).
 */
const feishuSchema = channelSchema.omit({ token: true, api_root: true, poll_timeout: true }).extend({
  app_id: z
    .string()
    .regex(/^cli_[0-9a-fA-F]{16}$/, "must look like cli_ followed by 16 hex digits (the App ID on the app's Credentials page)")
    .optional(),
  app_secret: secret(z.string()).optional(),
  /** `feishu` (open.feishu.cn), `lark` (open.larksuite.com), or another origin (private deployment; tests use a local fake). */
  domain: z.union([z.enum(['feishu', 'lark']), z.url({ protocol: /^https?$/ })]).default('feishu'),
});
export type FeishuChannelConfig = z.output<typeof feishuSchema>;

/**
 * Slack in Socket Mode (issue 27): two tokens instead of one, no public endpoint. The access keys
 * (allow_from: Slack user ids such as U0123ABCD) mean what they mean for the other channels.
 */
const slackSchema = channelSchema.omit({ token: true, poll_timeout: true }).extend({
  /** Bot User OAuth Token (xoxb-…): sends, edits, auth.test. */
  bot_token: secret(z.string()).optional(),
  /** App-level token with connections:write (xapp-…): opens the Socket Mode connection. */
  app_token: secret(z.string()).optional(),
  /** Another Web API root (the WebClient's slackApiUrl, e.g. http://127.0.0.1:3000/api/); tests use a local fake. */
  api_root: z.string().optional(),
});
export type SlackChannelConfig = z.output<typeof slackSchema>;

/** The chat platforms nestclaw ships, each with its own section under `channels` (plugin channels go under `channels.plugins`). */
export const BUILT_IN_CHANNELS = ['telegram', 'discord', 'feishu', 'slack'] as const;
export const isBuiltInChannel = (id: string): id is (typeof BUILT_IN_CHANNELS)[number] =>
  (BUILT_IN_CHANNELS as readonly string[]).includes(id);

/**
 * Who may talk on a channel a trusted plugin adds (docs/plugins.md), by its channel id: the same access
 * keys as the built-in channels, and the same default (nobody but paired senders). Its other settings
 * are the plugin's own `config`.
 */
const pluginChannelSchema = channelSchema.pick({ allow_from: true, approvers: true, group_policy: true, require_mention: true });
export type PluginChannelAccessConfig = z.output<typeof pluginChannelSchema>;

/** The built-in channels' defaults, parsed once (a plugin channel's settings are read per message). */
let channelDefaults: ChannelConfig | undefined;

/**
 * A plugin channel's settings as the channel lib reads a built-in's: the defaults (edit interval, file
 * size limit), with its access section. It is enabled: it exists because a trusted plugin added it.
 */
export function pluginChannelConfig(access: PluginChannelAccessConfig | undefined): ChannelConfig {
  return { ...(channelDefaults ??= channelSchema.parse({})), ...(access ?? {}), enabled: true };
}

export const channelsSchema = z
  .strictObject({
    command_prefix: z.string().min(1).max(3).default('/'),
    telegram: channelSchema.prefault({}),
    discord: channelSchema.prefault({}),
    feishu: feishuSchema.prefault({}),
    slack: slackSchema.prefault({}),
    /** Access settings of plugin channels, by channel id (the id the plugin's manifest declares). */
    plugins: z
      .record(
        z
          .string()
          .regex(/^[a-z][a-z0-9-]{0,39}$/, 'a channel id: lower-case letters, digits and -')
          .refine((id) => !isBuiltInChannel(id), 'is a built-in channel: set its access under channels.<id>'),
        pluginChannelSchema,
      )
      .default({}),
    /**
     * A message whose model request may have left before a crash: `rerun` asks again unless a tool call
     * that may change something had started (then a notice), `notify` always answers with a notice.
     */
    recovery: z.strictObject({ interrupted_turns: z.enum(['notify', 'rerun']).default('rerun') }).prefault({}),
  })
  .prefault({});
