import { recordInbound } from '@nestclaw/observability';
import type { ChannelAdapter, InboundMessage } from '../channel.port';
import { escapeHtml, telegramHtmlToText, toDiscordMarkdown, toTelegramHtml } from './markdown';
import { splitRendered } from './message-splitter';

export function renderFor(adapter: ChannelAdapter): (md: string) => string {
  switch (adapter.capabilities.format) {
    case 'telegram-html':
      return toTelegramHtml;
    case 'discord-markdown':
      return toDiscordMarkdown;
    case 'plain':
      return (s) => s;
  }
}

/** Plain text a platform shows as-is (previews of a still-growing reply: its Markdown may be half-open). */
export function literalFor(adapter: ChannelAdapter): (text: string) => string {
  return adapter.capabilities.format === 'telegram-html' ? escapeHtml : (s) => s;
}

export function plainFallback(adapter: ChannelAdapter, rendered: string, markdown: string): string {
  return adapter.capabilities.format === 'telegram-html' ? telegramHtmlToText(rendered) : markdown;
}

/** The reply as platform messages, each within the platform limit. */
export function replyParts(adapter: ChannelAdapter, markdown: string): { markdown: string; rendered: string }[] {
  const text = markdown.trim() ? markdown : '(empty reply)';
  return splitRendered(text, adapter.capabilities.maxMessageLength, renderFor(adapter));
}

/**
 * A streamed reply's preview: one message, edited at most every `intervalMs` while tokens arrive,
 * then replaced by the final (rendered, split) reply. Edits are serialized and never overlap.
 */
export class StreamPreview {
  private text = '';
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly adapter: ChannelAdapter,
    private readonly chatId: string,
    private readonly threadId: string | undefined,
    private readonly intervalMs: number,
    /** An existing preview message (recovery resumes it instead of sending another). */
    public messageId: string | undefined,
    private readonly onCreated: (platformMessageId: string, text: string) => Promise<void>,
  ) {}

  push(token: string): void {
    if (this.closed || !this.adapter.capabilities.edit || !this.adapter.edit) return;
    this.text += token;
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    const limit = this.adapter.capabilities.maxMessageLength - 2;
    const shown = this.text.length > limit ? `${this.text.slice(0, limit - 1)}…` : `${this.text} …`;
    const literal = literalFor(this.adapter)(shown);
    this.chain = this.chain.then(async () => {
      if (this.closed && this.messageId) return;
      try {
        if (!this.messageId) {
          const sent = await this.adapter.send({ chatId: this.chatId, threadId: this.threadId, text: literal, plain: shown });
          this.messageId = sent.platformMessageId;
          await this.onCreated(sent.platformMessageId, shown);
        } else {
          await this.adapter.edit!(this.chatId, this.messageId, literal, shown);
        }
      } catch {
        // a preview is best effort; the final reply is what must arrive
      }
    });
  }

  /** Stops previewing; resolves once any preview send/edit in flight has settled. */
  async close(): Promise<string | undefined> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.chain;
    return this.messageId;
  }
}

/** Sends the final reply, reusing the preview message for the first part, and records each part once sent. */
export async function deliverReply(
  adapter: ChannelAdapter,
  m: InboundMessage,
  text: string,
  previewId: string | undefined,
  record: (o: {
    channel: string;
    chatId: string;
    part: number;
    kind: 'reply';
    platformMessageId: string;
    content: string;
  }) => Promise<void>,
): Promise<void> {
  for (const [i, part] of replyParts(adapter, text).entries()) {
    const plain = plainFallback(adapter, part.rendered, part.markdown);
    let pid: string;
    if (i === 0 && previewId && adapter.edit) {
      await adapter.edit(m.chat.id, previewId, part.rendered, plain);
      pid = previewId;
    } else {
      pid = (await adapter.send({ chatId: m.chat.id, threadId: m.threadId, text: part.rendered, plain })).platformMessageId;
    }
    await record({ channel: m.channel, chatId: m.chat.id, part: i, kind: 'reply', platformMessageId: pid, content: part.markdown });
  }
  recordInbound(m.channel, 'answered');
}
