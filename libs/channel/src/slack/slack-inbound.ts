import type { InboundMessage, MediaRef } from '../channel.port';

/** The fields of a Slack `message` / `app_mention` event that nestclaw reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  team?: string;
  files?: { id: string; name?: string; mimetype?: string; size?: number }[];
}

/** A Socket Mode envelope's payload: an Events API callback or an interaction (block_actions). */
export interface SlackPayload {
  type?: string;
  team_id?: string;
  event_id?: string;
  event?: SlackMessageEvent;
  // block_actions
  trigger_id?: string;
  user?: { id: string; username?: string; name?: string; team_id?: string };
  team?: { id: string } | null;
  channel?: { id: string; name?: string };
  container?: { channel_id?: string; message_ts?: string; thread_ts?: string };
  message?: { ts: string; thread_ts?: string };
  actions?: { action_id: string; value?: string; action_ts?: string }[];
}

/** A user's message, a file share, or a reply also posted to the channel; edits, joins and bot posts are not messages to answer. */
const ANSWERED_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

/** Slack escapes & < > in message text and writes links and mentions as <…>; the agent gets the text as typed. */
function plainText(text: string, botUserId: string | undefined): string {
  let s = text;
  if (botUserId) s = s.replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g'), '');
  return s
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<((?:https?|mailto):[^|>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

function mediaOf(files: SlackMessageEvent['files']): MediaRef[] {
  return (files ?? []).map((f) => ({
    kind: f.mimetype?.startsWith('image/')
      ? 'photo'
      : f.mimetype?.startsWith('audio/')
        ? 'audio'
        : f.mimetype?.startsWith('video/')
          ? 'video'
          : 'document',
    fileId: f.id,
    fileName: f.name,
    mimeType: f.mimetype,
    sizeBytes: f.size,
  }));
}

/** DM channel ids start with D; `app_mention` events carry no channel_type. */
const isDm = (channelId: string, channelType?: string) => channelType === 'im' || (!channelType && channelId.startsWith('D'));

/**
 * An Events API message as nestclaw's inbound message, or undefined when there is nothing to
 * answer (our own posts, other bots, edits). Its id is `<channel>:<ts>`: the same message arrives
 * twice when the bot is mentioned (`message` and `app_mention`), and again on every redelivery.
 */
export function slackEventToInbound(payload: SlackPayload, botUserId: string | undefined): InboundMessage | undefined {
  const e = payload.event;
  if (!e || (e.type !== 'message' && e.type !== 'app_mention')) return undefined;
  if (!ANSWERED_SUBTYPES.has(e.subtype) || e.bot_id || !e.user || e.user === botUserId) return undefined;
  const dm = isDm(e.channel, e.channel_type);
  const text = e.text ?? '';
  return {
    channel: 'slack',
    platformMessageId: `${e.channel}:${e.ts}`,
    chat: { id: e.channel, type: dm ? 'dm' : 'group' },
    sender: { id: e.user },
    threadId: e.thread_ts,
    teamId: e.team ?? payload.team_id,
    mentioned: dm || e.type === 'app_mention' || (!!botUserId && text.includes(`<@${botUserId}`)),
    text: plainText(text, botUserId),
    media: mediaOf(e.files),
    raw: { ts: e.ts, channel: e.channel, ...(payload.event_id ? { event_id: payload.event_id } : {}) },
    timestamp: new Date(Math.floor(Number(e.ts) * 1000)).toISOString(),
  };
}

/** A Block Kit button press (`block_actions`) as a callback; its id is the interaction's trigger_id. */
export function slackActionToInbound(payload: SlackPayload): InboundMessage | undefined {
  const action = payload.actions?.[0];
  const channelId = payload.channel?.id ?? payload.container?.channel_id;
  if (payload.type !== 'block_actions' || !action?.value || !payload.user || !channelId) return undefined;
  const id = payload.trigger_id ?? `${channelId}:${action.action_ts ?? ''}:${payload.user.id}`;
  return {
    channel: 'slack',
    platformMessageId: `act:${id}`,
    chat: { id: channelId, type: isDm(channelId) ? 'dm' : 'group' },
    sender: { id: payload.user.id, name: payload.user.name, username: payload.user.username },
    threadId: payload.message?.thread_ts ?? payload.container?.thread_ts,
    teamId: payload.team?.id ?? payload.user.team_id,
    mentioned: true,
    text: '',
    media: [],
    raw: { trigger_id: id, channel: channelId },
    timestamp: new Date().toISOString(),
    callback: { id, data: action.value, messageId: payload.container?.message_ts ?? payload.message?.ts },
  };
}
