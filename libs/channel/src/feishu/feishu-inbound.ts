import type { InboundMessage, MediaRef } from '../channel.port';

/** `im.message.receive_v1` as the SDK's EventDispatcher hands it over (header fields merged with the event). */
export interface FeishuMessageEvent {
  event_id?: string;
  sender: { sender_id?: { open_id?: string; user_id?: string; union_id?: string }; sender_type: string };
  message: {
    message_id: string;
    parent_id?: string;
    create_time: string;
    chat_id: string;
    chat_type: string;
    message_type: string;
    content: string;
    mentions?: { key: string; id: { open_id?: string }; name: string }[];
  };
}

/** `card.action.trigger` (card JSON 2.0 callbacks over the long connection). */
export interface FeishuCardActionEvent {
  event_id?: string;
  operator?: { open_id?: string; name?: string };
  action?: { value?: unknown };
  context?: { open_message_id?: string; open_chat_id?: string };
}

type PostNode = { tag: string; text?: string; href?: string; user_id?: string; user_name?: string; image_key?: string; file_key?: string };

const parse = (content: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(content) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** A rich-text (`post`) body as received: `{title, content}` or, in some clients, wrapped in a locale key. */
function postText(body: Record<string, unknown>, media: MediaRef[]): string {
  const post = (Array.isArray(body.content) ? body : (Object.values(body).find((v) => v && typeof v === 'object') ?? {})) as {
    title?: string;
    content?: PostNode[][];
  };
  const lines = (post.content ?? []).map((line) =>
    line
      .map((n) => {
        if (n.tag === 'img' && n.image_key) media.push({ kind: 'photo', fileId: n.image_key });
        if (n.tag === 'media' && n.file_key) media.push({ kind: 'video', fileId: n.file_key });
        if (n.tag === 'at') return n.user_id ? `@_at_${n.user_id}` : '';
        if (n.tag === 'a') return n.href && n.text !== n.href ? `[${n.text ?? n.href}](${n.href})` : (n.text ?? n.href ?? '');
        return n.text ?? '';
      })
      .join(''),
  );
  return [post.title, ...lines].filter((l) => l !== undefined && l !== '').join('\n');
}

/**
 * A received message as the pipeline's model. The bot counts as mentioned when its open_id is in
 * `mentions`; its own placeholder (`@_user_1`) is removed from the text, other people's become `@name`.
 */
export function feishuMessageToInbound(e: FeishuMessageEvent, botOpenId: string | undefined): InboundMessage {
  const m = e.message;
  const body = parse(m.content);
  const media: MediaRef[] = [];
  let text = '';
  switch (m.message_type) {
    case 'text':
      text = typeof body.text === 'string' ? body.text : '';
      break;
    case 'post':
      text = postText(body, media);
      break;
    case 'image':
      media.push({ kind: 'photo', fileId: String(body.image_key ?? '') });
      break;
    case 'file':
      media.push({ kind: 'document', fileId: String(body.file_key ?? ''), fileName: body.file_name as string | undefined });
      break;
    case 'audio':
      media.push({ kind: 'audio', fileId: String(body.file_key ?? '') });
      break;
    case 'media':
      media.push({ kind: 'video', fileId: String(body.file_key ?? ''), fileName: body.file_name as string | undefined });
      break;
    case 'sticker':
      media.push({ kind: 'sticker', fileId: String(body.file_key ?? '') });
      break;
    default:
      media.push({ kind: 'other', fileId: m.message_id });
  }
  const mentions = m.mentions ?? [];
  const mentioned = m.chat_type === 'p2p' || (!!botOpenId && mentions.some((x) => x.id.open_id === botOpenId));
  // The bot's own mention goes, with the space after it; indentation elsewhere (pasted code) stays.
  const drop = (t: string, token: string, name: string, self: boolean) =>
    self ? t.split(`${token} `).join('').split(token).join('') : t.split(token).join(`@${name}`);
  for (const x of mentions) {
    const self = !!botOpenId && x.id.open_id === botOpenId;
    text = drop(text, x.key, x.name, self);
    if (x.id.open_id) text = drop(text, `@_at_${x.id.open_id}`, x.name, self);
  }
  text = text.replace(/@_at_\S+ ?/g, '').trim();
  const senderId = e.sender.sender_id?.open_id ?? '';
  return {
    channel: 'feishu',
    platformMessageId: m.message_id,
    chat: { id: m.chat_id, type: m.chat_type === 'p2p' ? 'dm' : 'group' },
    sender: { id: senderId, isBot: e.sender.sender_type !== 'user' },
    replyToId: m.parent_id || undefined,
    mentioned,
    text,
    media,
    raw: { message_id: m.message_id, chat_id: m.chat_id, ...(e.event_id ? { event_id: e.event_id } : {}) },
    timestamp: new Date(Number(m.create_time) || Date.now()).toISOString(),
  };
}

/** A button press on one of our cards; undefined when the card carries no button data of ours. */
export function feishuCardActionToInbound(e: FeishuCardActionEvent, callbackId: string): InboundMessage | undefined {
  const value = e.action?.value as { data?: unknown } | undefined;
  const chatId = e.context?.open_chat_id;
  if (typeof value?.data !== 'string' || !chatId || !e.operator?.open_id) return undefined;
  return {
    channel: 'feishu',
    platformMessageId: `cb:${callbackId}`,
    // The event does not say the chat's type; only a press's sender and message matter to the pipeline.
    chat: { id: chatId, type: 'dm' },
    sender: { id: e.operator.open_id, name: e.operator.name },
    mentioned: true,
    text: '',
    media: [],
    raw: { event_id: callbackId },
    timestamp: new Date().toISOString(),
    callback: { id: callbackId, data: value.data, messageId: e.context?.open_message_id },
  };
}
