import { Logger } from '@nestjs/common';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonInteraction,
  ButtonStyle,
  ChannelType,
  Client,
  Events,
  GatewayIntentBits,
  Message,
  Partials,
  Routes,
  type APIMessage,
} from 'discord.js';
import type { ChannelConfig } from '@nestclaw/config';
import {
  ChannelAdapter,
  ChannelCapabilities,
  InboundMessage,
  InboundSink,
  LastSeen,
  MediaRef,
  OutboundFile,
  OutboundMessage,
} from '../channel.port';

/** Interactions must be answered within 3 s; older ones are dropped from the map. */
const INTERACTION_TTL_MS = 15 * 60_000;

/**
 * Discord through discord.js (gateway connection, no public endpoint). The gateway has no
 * acknowledgement to hold back, so durability here means: each message is stored before the next
 * one from the gateway is handled (a chain keeps arrival order), and replies are only recorded once
 * Discord returned their message id. discord.js's REST client honours 429 `retry_after` itself.
 *
 * Sending goes through REST alone, never the gateway connection: only the replica owning the channel
 * connects (issue 24), and every replica must be able to deliver the replies of the turns it runs.
 */
export class DiscordChannel implements ChannelAdapter {
  readonly id = 'discord';
  readonly capabilities: ChannelCapabilities = {
    maxMessageLength: 2000,
    format: 'discord-markdown',
    edit: true,
    typing: true,
    buttons: true,
    idempotentSend: true,
  };
  private readonly logger = new Logger('Discord');
  private readonly client: Client;
  private readonly interactions = new Map<string, { interaction: ButtonInteraction; at: number }>();
  private chain: Promise<void> = Promise.resolve();
  private ready = false;

  constructor(private readonly config: ChannelConfig) {
    if (!config.token) throw new Error('channels.discord.token is not set');
    const root = config.api_root?.replace(/\/$/, '');
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      partials: [Partials.Channel, Partials.Message],
      rest: root ? { api: root.endsWith('/api') ? root : `${root}/api` } : {},
    });
    this.client.rest.setToken(config.token);
  }

  get connected(): boolean {
    return this.ready;
  }

  /** Opens the gateway connection (again after `stop`: the lease may come back to this replica). */
  async start(sink: InboundSink, lastSeen: LastSeen = new Map()): Promise<void> {
    this.client.removeAllListeners(Events.MessageCreate);
    this.client.removeAllListeners(Events.InteractionCreate);
    const handle = (m: InboundMessage | undefined) => {
      if (!m) return;
      this.chain = this.chain
        .then(() => sink(m))
        .catch((e: unknown) => this.logger.error(`could not store message ${m.platformMessageId}: ${(e as Error).message}`));
    };
    this.client.on(Events.MessageCreate, (msg) => handle(this.toInbound(msg)));
    this.client.on(Events.InteractionCreate, (i) => {
      if (!i.isButton()) return;
      this.interactions.set(i.id, { interaction: i, at: Date.now() });
      for (const [id, v] of this.interactions) if (Date.now() - v.at > INTERACTION_TTL_MS) this.interactions.delete(id);
      handle({
        channel: this.id,
        platformMessageId: `int:${i.id}`,
        chat: { id: i.channelId ?? '', type: i.inGuild() ? 'group' : 'dm' },
        sender: { id: i.user.id, name: i.user.globalName ?? i.user.username, username: i.user.username },
        guildId: i.guildId ?? undefined,
        mentioned: true,
        text: '',
        media: [],
        raw: { interaction_id: i.id },
        timestamp: new Date().toISOString(),
        callback: { id: i.id, data: i.customId, messageId: i.message.id },
      });
    });
    const ready = new Promise<void>((resolve) => this.client.once(Events.ClientReady, () => resolve()));
    await this.client.login(this.config.token);
    await ready;
    this.ready = true;
    this.logger.log(`connected as ${this.client.user?.username ?? '?'}`);
    await this.catchUp(lastSeen, handle);
  }

  /** Messages sent to known chats while the gateway was down, oldest first (Discord does not redeliver them). */
  private async catchUp(lastSeen: LastSeen, handle: (m: InboundMessage | undefined) => void): Promise<void> {
    let n = 0;
    for (const [chatId, after] of lastSeen) {
      try {
        const ch = await this.client.channels.fetch(chatId);
        if (!ch || !('messages' in ch) || !ch.isTextBased()) continue;
        const missed = await ch.messages.fetch({ after, limit: 100 });
        const ordered = [...missed.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
        for (const msg of ordered) {
          if (msg.author.id === this.client.user?.id) continue;
          handle(this.toInbound(msg));
          n++;
        }
      } catch (e) {
        this.logger.warn(`could not catch up on chat ${chatId}: ${(e as Error).message}`);
      }
    }
    await this.chain;
    if (n) this.logger.log(`caught up on ${n} message(s) sent while offline`);
  }

  async stop(): Promise<void> {
    this.ready = false;
    await this.client.destroy();
    // destroy() forgets the token; sending (REST) goes on without the gateway connection.
    this.client.rest.setToken(this.config.token!);
    await this.chain;
  }

  toInbound(msg: Message): InboundMessage | undefined {
    const me = this.client.user?.id;
    const isDm = msg.channel.type === ChannelType.DM;
    const thread = msg.channel.isThread() ? msg.channel : undefined;
    const mentioned = isDm || (!!me && msg.mentions.users.has(me)) || (!!me && msg.mentions.repliedUser?.id === me);
    const media: MediaRef[] = [...msg.attachments.values()].map((a) => ({
      kind: a.contentType?.startsWith('image/')
        ? 'photo'
        : a.contentType?.startsWith('audio/')
          ? 'audio'
          : a.contentType?.startsWith('video/')
            ? 'video'
            : 'document',
      fileId: a.id,
      fileName: a.name,
      mimeType: a.contentType ?? undefined,
      sizeBytes: a.size,
    }));
    return {
      channel: this.id,
      platformMessageId: msg.id,
      chat: { id: msg.channelId, type: isDm ? 'dm' : 'group', title: 'name' in msg.channel ? (msg.channel.name ?? undefined) : undefined },
      sender: {
        id: msg.author.id,
        name: msg.author.globalName ?? msg.author.username,
        username: msg.author.username,
        isBot: msg.author.bot,
      },
      threadId: thread?.id,
      guildId: msg.guildId ?? undefined,
      replyToId: msg.reference?.messageId ?? undefined,
      mentioned,
      text: me ? msg.content.replace(new RegExp(`<@!?${me}>`, 'g'), '').trim() : msg.content,
      media,
      raw: { message_id: msg.id, channel_id: msg.channelId, ...(msg.guildId ? { guild_id: msg.guildId } : {}) },
      timestamp: msg.createdAt.toISOString(),
    };
  }

  async send(out: OutboundMessage): Promise<{ platformMessageId: string }> {
    const components = out.buttons?.map((row) =>
      new ActionRowBuilder<ButtonBuilder>()
        .addComponents(
          row.map((b, i) =>
            new ButtonBuilder()
              .setCustomId(b.data)
              .setLabel(b.text)
              .setStyle(i === 0 ? ButtonStyle.Success : ButtonStyle.Danger),
          ),
        )
        .toJSON(),
    );
    const nonce = nonceOf(out.nonce);
    const sent = (await this.client.rest.post(Routes.channelMessages(out.chatId), {
      body: {
        content: out.text,
        ...(components ? { components } : {}),
        allowed_mentions: { parse: [] },
        ...(nonce ? { nonce, enforce_nonce: true } : {}),
      },
    })) as APIMessage;
    return { platformMessageId: sent.id };
  }

  /** A message with `file` attached (multipart: the JSON as `payload_json`, the file as `files[0]`), idempotent by nonce. */
  async sendFile(file: OutboundFile): Promise<{ platformMessageId: string }> {
    const nonce = nonceOf(file.nonce);
    const sent = (await this.client.rest.post(Routes.channelMessages(file.chatId), {
      body: {
        attachments: [{ id: 0, filename: file.name }],
        allowed_mentions: { parse: [] },
        ...(nonce ? { nonce, enforce_nonce: true } : {}),
      },
      files: [{ name: file.name, data: file.content, contentType: 'text/markdown; charset=utf-8' }],
    })) as APIMessage;
    return { platformMessageId: sent.id };
  }

  async edit(chatId: string, platformMessageId: string, text: string): Promise<void> {
    await this.client.rest.patch(Routes.channelMessage(chatId, platformMessageId), {
      body: { content: text, components: [], allowed_mentions: { parse: [] } },
    });
  }

  async typing(chatId: string): Promise<void> {
    await this.client.rest.post(Routes.channelTyping(chatId));
  }

  async answerCallback(callbackId: string, text?: string): Promise<void> {
    const entry = this.interactions.get(callbackId);
    if (!entry) return;
    this.interactions.delete(callbackId);
    const { interaction } = entry;
    if (interaction.replied || interaction.deferred) return;
    if (text) await interaction.reply({ content: text, flags: 64 /* ephemeral */ });
    else await interaction.deferUpdate();
  }
}

/** The nonce makes a repeated send (a retry after a crash) return the message already created. */
const nonceOf = (key: string | undefined) => (key ? `nc${key}`.slice(0, 25) : undefined);
