import { Logger } from '@nestjs/common';
import { Input, Telegram, TelegramError } from 'telegraf';
import type { ChannelConfig } from '@nestclaw/config';
import type { Update, Message } from 'telegraf/types';
import { ChannelAdapter, ChannelCapabilities, InboundMessage, InboundSink, MediaRef, OutboundFile, OutboundMessage } from '../channel.port';
import { RetryPolicy, withRetry } from '../delivery/send-retry';

const ALLOWED_UPDATES = ['message', 'callback_query', 'channel_post'] as const;

const retryPolicy: RetryPolicy = {
  retryAfter: (e) => (e instanceof TelegramError && e.code === 429 ? (e.parameters?.retry_after ?? 1) : undefined),
  transient: (e) => !(e instanceof TelegramError) || e.code >= 500,
};

/** A wait that ends early when the adapter stops. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** Another getUpdates for this bot is open (another poller, or our previous owner's last poll during a handover). */
const isConflict = (e: unknown) => e instanceof TelegramError && e.code === 409;

const isParseError = (e: unknown) => e instanceof TelegramError && e.code === 400 && /parse|entit/i.test(e.description);

/**
 * Telegram through telegraf's API client, long polling driven here rather than by `bot.launch()`:
 * telegraf's poller confirms an update batch as soon as its handlers return and gives no hook
 * between "stored" and "confirmed". This loop hands each update to the sink (a Postgres insert) and
 * only then moves the offset, so an update is never confirmed to Telegram before it is durable.
 */
export class TelegramChannel implements ChannelAdapter {
  readonly id = 'telegram';
  readonly capabilities: ChannelCapabilities = {
    maxMessageLength: 4096,
    format: 'telegram-html',
    edit: true,
    typing: true,
    buttons: true,
    idempotentSend: false,
  };
  private readonly logger = new Logger('Telegram');
  private readonly telegram: Telegram;
  private abort?: AbortController;
  private loop?: Promise<void>;
  private offset = 0;
  private me?: { id: number; username?: string };
  /** getMe answered in this polling period (readiness). */
  private polling = false;

  constructor(private readonly config: ChannelConfig) {
    if (!config.token) throw new Error('channels.telegram.token is not set');
    this.telegram = new Telegram(config.token, config.api_root ? { apiRoot: config.api_root } : {});
  }

  get connected(): boolean {
    return this.polling && !!this.abort && !this.abort.signal.aborted;
  }

  /** Returns once polling runs; if Telegram is unreachable at boot, keeps trying in the background. Can start again after `stop`. */
  async start(sink: InboundSink): Promise<void> {
    this.abort = new AbortController();
    this.polling = false;
    const signal = this.abort.signal;
    const connect = async (): Promise<void> => {
      for (let attempt = 1; !signal.aborted; attempt++) {
        try {
          const me = await this.telegram.getMe();
          this.me = { id: me.id, username: me.username };
          this.polling = true;
          this.logger.log(`polling as @${me.username ?? me.id}`);
          return;
        } catch (e) {
          const wait = Math.min(60_000, 500 * 2 ** attempt);
          this.logger.warn(`getMe failed (${(e as Error).message}); retrying in ${wait} ms`);
          await sleep(wait, signal);
        }
      }
    };
    const first = connect();
    this.loop = first.then(() => this.poll(sink, signal));
    // Wait briefly for the first getMe so a healthy start logs in order; never block boot on Telegram.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([first, new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    this.polling = false;
    await this.loop;
  }

  private async poll(sink: InboundSink, signal: AbortSignal): Promise<void> {
    let failures = 0;
    let conflicts = 0;
    while (!signal.aborted) {
      try {
        const updates = (await this.telegram.callApi(
          'getUpdates',
          { offset: this.offset, timeout: this.config.poll_timeout, allowed_updates: [...ALLOWED_UPDATES] },
          // telegraf types its signal with the abort-controller polyfill; Node's is compatible at runtime.
          { signal: signal as never },
        )) as Update[];
        for (const update of updates) {
          const message = this.toInbound(update);
          // Durable first; if the store fails, the offset stays and Telegram redelivers.
          if (message) await sink(message);
          this.offset = update.update_id + 1;
        }
        failures = 0;
        conflicts = 0;
      } catch (e) {
        if (signal.aborted) break;
        if (isConflict(e)) {
          // A handover's brief overlap (the inbound dedupe absorbs any update seen twice): said once, then quiet.
          if (conflicts++ === 0) this.logger.log('another getUpdates is open for this bot (409 Conflict); retrying quietly');
          else this.logger.debug(`getUpdates: 409 Conflict (${conflicts} in a row)`);
          await sleep(Math.min(5000, 500 * conflicts), signal);
          continue;
        }
        failures++;
        const wait =
          e instanceof TelegramError && e.code === 429 ? (e.parameters?.retry_after ?? 1) * 1000 : Math.min(30_000, 250 * 2 ** failures);
        this.logger.warn(`getUpdates failed (${(e as Error).message}); retrying in ${wait} ms`);
        await sleep(wait, signal);
      }
    }
  }

  toInbound(update: Update): InboundMessage | undefined {
    if ('callback_query' in update) {
      const q = update.callback_query;
      const msg = q.message;
      if (!msg || !('data' in q)) return undefined;
      return {
        channel: this.id,
        platformMessageId: `cb:${q.id}`,
        chat: { id: String(msg.chat.id), type: msg.chat.type === 'private' ? 'dm' : msg.chat.type === 'channel' ? 'channel' : 'group' },
        sender: { id: String(q.from.id), name: [q.from.first_name, q.from.last_name].filter(Boolean).join(' '), username: q.from.username },
        mentioned: true,
        text: '',
        media: [],
        raw: { update_id: update.update_id, callback_query_id: q.id },
        timestamp: new Date().toISOString(),
        callback: { id: q.id, data: q.data, messageId: String(msg.message_id) },
      };
    }
    const m = ('message' in update ? update.message : 'channel_post' in update ? update.channel_post : undefined) as Message | undefined;
    if (!m) return undefined;
    const text = ('text' in m ? m.text : 'caption' in m ? m.caption : undefined) ?? '';
    const chatType = m.chat.type === 'private' ? 'dm' : m.chat.type === 'channel' ? 'channel' : 'group';
    const from = m.from ?? { id: m.chat.id, first_name: 'title' in m.chat ? m.chat.title : 'channel', is_bot: false };
    const username = this.me?.username;
    const replyTo = 'reply_to_message' in m ? m.reply_to_message : undefined;
    const mentioned =
      chatType === 'dm' || (!!username && text.toLowerCase().includes(`@${username.toLowerCase()}`)) || replyTo?.from?.id === this.me?.id;
    return {
      channel: this.id,
      platformMessageId: `${m.chat.id}:${m.message_id}`,
      chat: { id: String(m.chat.id), type: chatType, title: 'title' in m.chat ? m.chat.title : undefined },
      sender: {
        id: String(from.id),
        name: [from.first_name, 'last_name' in from ? from.last_name : undefined].filter(Boolean).join(' '),
        username: 'username' in from ? from.username : undefined,
        isBot: from.is_bot,
      },
      threadId: 'message_thread_id' in m && m.message_thread_id ? String(m.message_thread_id) : undefined,
      replyToId: replyTo ? String(replyTo.message_id) : undefined,
      mentioned,
      text: username ? text.replace(new RegExp(`@${username}\\b`, 'gi'), '').trim() : text,
      media: mediaOf(m),
      raw: { update_id: update.update_id, message_id: m.message_id, chat_id: m.chat.id },
      timestamp: new Date(m.date * 1000).toISOString(),
    };
  }

  async send(out: OutboundMessage): Promise<{ platformMessageId: string }> {
    const extra = {
      ...(out.threadId ? { message_thread_id: Number(out.threadId) } : {}),
      ...(out.buttons
        ? { reply_markup: { inline_keyboard: out.buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))) } }
        : {}),
      link_preview_options: { is_disabled: true },
    };
    const sent = await withRetry(async () => {
      try {
        return await this.telegram.sendMessage(out.chatId, out.text, { ...extra, parse_mode: 'HTML' });
      } catch (e) {
        // Rendering we got wrong must not lose the reply: send it as plain text instead.
        if (isParseError(e) && out.plain !== undefined) return this.telegram.sendMessage(out.chatId, out.plain, extra);
        throw e;
      }
    }, retryPolicy);
    return { platformMessageId: String(sent.message_id) };
  }

  async edit(chatId: string, platformMessageId: string, text: string, plain?: string): Promise<void> {
    await withRetry(async () => {
      try {
        await this.telegram.editMessageText(chatId, Number(platformMessageId), undefined, text, {
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
        });
      } catch (e) {
        if (e instanceof TelegramError && /not modified/i.test(e.description)) return;
        if (isParseError(e) && plain !== undefined) {
          await this.telegram.editMessageText(chatId, Number(platformMessageId), undefined, plain);
          return;
        }
        throw e;
      }
    }, retryPolicy);
  }

  /** A document (multipart `sendDocument`); Telegram has no idempotency key, so delivery sends a placeholder first. */
  async sendFile(file: OutboundFile): Promise<{ platformMessageId: string }> {
    const extra = file.threadId ? { message_thread_id: Number(file.threadId) } : {};
    const sent = await withRetry(
      () => this.telegram.sendDocument(file.chatId, Input.fromBuffer(file.content, file.name), extra),
      retryPolicy,
    );
    return { platformMessageId: String(sent.message_id) };
  }

  /** Puts `file` in place of the document of a message (`editMessageMedia`, the file uploaded as `attach://`). */
  async editFile(chatId: string, platformMessageId: string, file: OutboundFile): Promise<void> {
    await withRetry(async () => {
      try {
        await this.telegram.editMessageMedia(chatId, Number(platformMessageId), undefined, {
          type: 'document',
          media: Input.fromBuffer(file.content, file.name),
        });
      } catch (e) {
        if (e instanceof TelegramError && /not modified/i.test(e.description)) return;
        throw e;
      }
    }, retryPolicy);
  }

  async typing(chatId: string, threadId?: string): Promise<void> {
    await this.telegram.sendChatAction(chatId, 'typing', threadId ? { message_thread_id: Number(threadId) } : undefined);
  }

  async answerCallback(callbackId: string, text?: string): Promise<void> {
    await this.telegram.answerCbQuery(callbackId, text);
  }
}

function mediaOf(m: Message): MediaRef[] {
  const out: MediaRef[] = [];
  if ('photo' in m && m.photo?.length) {
    const p = m.photo[m.photo.length - 1];
    out.push({ kind: 'photo', fileId: p.file_id, sizeBytes: p.file_size });
  }
  if ('document' in m && m.document)
    out.push({
      kind: 'document',
      fileId: m.document.file_id,
      fileName: m.document.file_name,
      mimeType: m.document.mime_type,
      sizeBytes: m.document.file_size,
    });
  if ('video' in m && m.video)
    out.push({ kind: 'video', fileId: m.video.file_id, mimeType: m.video.mime_type, sizeBytes: m.video.file_size });
  if ('audio' in m && m.audio)
    out.push({ kind: 'audio', fileId: m.audio.file_id, mimeType: m.audio.mime_type, sizeBytes: m.audio.file_size });
  if ('voice' in m && m.voice)
    out.push({ kind: 'voice', fileId: m.voice.file_id, mimeType: m.voice.mime_type, sizeBytes: m.voice.file_size });
  if ('sticker' in m && m.sticker) out.push({ kind: 'sticker', fileId: m.sticker.file_id, sizeBytes: m.sticker.file_size });
  return out;
}
