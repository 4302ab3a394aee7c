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

export const channelsSchema = z
  .strictObject({
    command_prefix: z.string().min(1).max(3).default('/'),
    telegram: channelSchema.prefault({}),
    discord: channelSchema.prefault({}),
    slack: slackSchema.prefault({}),
    /**
     * A message whose model request may have left before a crash: `rerun` asks again unless a tool call
     * that may change something had started (then a notice), `notify` always answers with a notice.
     */
    recovery: z.strictObject({ interrupted_turns: z.enum(['notify', 'rerun']).default('rerun') }).prefault({}),
  })
  .prefault({});
