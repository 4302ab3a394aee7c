import type { ChannelAdapter } from '../channel.port';
import { literalFor, PLACEHOLDER } from './rendering';

/** Where a preview records itself: the intent before the send, the platform id after. */
export interface PreviewRecord {
  intend(text: string): Promise<string>;
  delivered(rowId: string, platformMessageId: string): Promise<void>;
}

/**
 * A streamed reply's preview: one message, edited at most every `intervalMs` while tokens arrive (or
 * a CLI's progress replaces its text), then edited into the final reply. Its row is written before the send that creates it, so after a
 * crash the next attempt edits this message instead of sending another. Edits are serialized.
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
    private readonly record: PreviewRecord,
  ) {}

  private get editable(): boolean {
    return this.adapter.capabilities.edit && !!this.adapter.edit;
  }

  /**
   * The turn started. A platform without an idempotent send gets its placeholder now, so the final
   * text is always an edit: a crash can then leave a stray placeholder, never a second full reply.
   */
  begin(): void {
    if (this.editable && !this.adapter.capabilities.idempotentSend && !this.messageId) this.show(PLACEHOLDER, PLACEHOLDER);
  }

  push(token: string): void {
    if (this.closed || !this.editable) return;
    this.text += token;
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Shows `text` instead of what the preview showed: a CLI's progress is what it does now, not more of the reply. */
  replace(text: string): void {
    if (this.closed || !this.editable) return;
    this.text = text;
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    const limit = this.adapter.capabilities.maxMessageLength - 2;
    const shown = this.text.length > limit ? `${this.text.slice(0, limit - 1)}…` : `${this.text} …`;
    this.show(literalFor(this.adapter)(shown), shown);
  }

  private show(literal: string, shown: string): void {
    this.chain = this.chain.then(async () => {
      if (this.closed && this.messageId) return;
      try {
        if (!this.messageId) {
          const rowId = await this.record.intend(shown);
          const sent = await this.adapter.send({ chatId: this.chatId, threadId: this.threadId, text: literal, plain: shown, nonce: rowId });
          this.messageId = sent.platformMessageId;
          await this.record.delivered(rowId, sent.platformMessageId);
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
