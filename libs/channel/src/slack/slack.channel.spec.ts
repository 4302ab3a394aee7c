import type { SlackChannelConfig } from '@nestclaw/config';
import { SlackChannel } from './slack.channel';

const config = (c: Partial<SlackChannelConfig>) =>
  ({
    enabled: true,
    allow_from: [],
    group_policy: 'allowlist',
    require_mention: true,
    max_file_bytes: 1,
    stream_edit_interval: 1000,
    ...c,
  }) as SlackChannelConfig;

describe('SlackChannel set-up', () => {
  it('refuses to be built without both tokens, or with a token of the wrong kind', () => {
    expect(() => new SlackChannel(config({ app_token: 'xapp-1' }))).toThrow('channels.slack.bot_token is not set');
    expect(() => new SlackChannel(config({ bot_token: 'xoxb-1' }))).toThrow('channels.slack.app_token is not set');
    expect(() => new SlackChannel(config({ bot_token: 'xoxp-1', app_token: 'xapp-1' }))).toThrow(/bot token \(xoxb-/);
    expect(() => new SlackChannel(config({ bot_token: 'xoxb-1', app_token: 'xoxb-2' }))).toThrow(/app-level token \(xapp-/);
  });

  it('is built (no network yet) from a bot and an app-level token, with Slack mrkdwn and a 3,000 limit', () => {
    const slack = new SlackChannel(config({ bot_token: 'xoxb-1', app_token: 'xapp-1' }));
    expect(slack.capabilities).toMatchObject({ format: 'slack-mrkdwn', maxMessageLength: 3000, buttons: true, idempotentSend: false });
    expect(slack.connected).toBe(false);
  });
});
