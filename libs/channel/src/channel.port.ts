/**
 * The port every chat platform implements, and the one inbound model they all fill (the design
 * notes' MsgContext, trimmed to what nestclaw uses).
 */

export type ChatType = 'dm' | 'group' | 'channel';

export interface MediaRef {
  kind: 'photo' | 'document' | 'audio' | 'video' | 'voice' | 'sticker' | 'other';
  fileId: string;
  fileName?: string;
  mimeType?: string;
  sizeBytes?: number;
}

export interface InboundMessage {
  channel: string;
  /** Bot account on the platform (several bots per platform may be configured later). */
  accountId?: string;
  /** Unique per channel: a redelivery carries the same id and is ignored. */
  platformMessageId: string;
  chat: { id: string; type: ChatType; title?: string };
  sender: { id: string; name?: string; username?: string; isBot?: boolean };
  threadId?: string;
  guildId?: string;
  teamId?: string;
  replyToId?: string;
  /** The bot was @-mentioned or replied to. */
  mentioned: boolean;
  text: string;
  media: MediaRef[];
  /** Platform ids as received (update_id, message_id, …), for the log and debugging. */
  raw: Record<string, string | number>;
  timestamp: string;
  /** A button press (Telegram callback query, Discord component interaction, Slack block action). */
  callback?: { id: string; data: string; messageId?: string };
}

export interface Button {
  text: string;
  data: string;
}

export interface OutboundMessage {
  chatId: string;
  /** Already rendered for the platform (Telegram HTML, Discord Markdown, Slack mrkdwn). */
  text: string;
  /** Plain fallback when the platform rejects the rendering. */
  plain?: string;
  threadId?: string;
  replyToId?: string;
  buttons?: Button[][];
  /** Idempotency key: a platform with `idempotentSend` creates one message per key however often it is sent. */
  nonce?: string;
}

/** A document sent into a chat (a long answer as `answer-<time>.md`). */
export interface OutboundFile {
  chatId: string;
  threadId?: string;
  /** The file name the chat shows. */
  name: string;
  content: Buffer;
  /** Idempotency key, as for `send`. */
  nonce?: string;
}

export interface ChannelCapabilities {
  /** Longest message, in UTF-16 code units. */
  maxMessageLength: number;
  format: 'telegram-html' | 'discord-markdown' | 'feishu-markdown' | 'slack-mrkdwn' | 'plain';
  edit: boolean;
  typing: boolean;
  buttons: boolean;
  /** Sending twice with the same `nonce` creates one message (Discord's `enforce_nonce`); Telegram has no such key. */
  idempotentSend: boolean;
}

/** Resolves once the message is durably stored; only then may the adapter acknowledge it. */
export type InboundSink = (message: InboundMessage) => Promise<void>;

/** Where each chat stood when the gateway last stopped: chat id → newest stored platform message id. */
export type LastSeen = ReadonlyMap<string, string>;

export interface ChannelAdapter {
  readonly id: string;
  readonly capabilities: ChannelCapabilities;
  /**
   * Starts receiving. Platforms that do not redeliver what arrived while the gateway was down
   * (Discord) use `lastSeen` to fetch the missed messages; the sink drops any it already stored.
   */
  start(sink: InboundSink, lastSeen?: LastSeen): Promise<void>;
  /** Receiving now (polling answered, gateway connection ready); absent: taken as up once `start` resolved. */
  readonly connected?: boolean;
  /** Sends one message (retrying 429s and transient failures) and returns its platform id. */
  send(message: OutboundMessage): Promise<{ platformMessageId: string }>;
  edit?(chatId: string, platformMessageId: string, text: string, plain?: string): Promise<void>;
  /** Sends a document (retrying as `send` does); absent: long replies go as split messages. */
  sendFile?(file: OutboundFile): Promise<{ platformMessageId: string }>;
  /**
   * Replaces the document of a message `sendFile` created: a platform without `idempotentSend` sends a
   * placeholder file first and edits the answer into it, as its text replies do, so a crash never
   * leaves two whole copies.
   */
  editFile?(chatId: string, platformMessageId: string, file: OutboundFile): Promise<void>;
  typing?(chatId: string, threadId?: string): Promise<void>;
  answerCallback?(callbackId: string, text?: string): Promise<void>;
  stop(): Promise<void>;
}

/** Decides a pending tool approval; implemented by the tool layer's ApprovalService. */
export interface ApprovalDecider {
  decide(id: string, decision: 'approve' | 'deny', decidedBy: string): Promise<{ ok: boolean; message?: string }>;
}
export const APPROVAL_DECIDER = Symbol('APPROVAL_DECIDER');
