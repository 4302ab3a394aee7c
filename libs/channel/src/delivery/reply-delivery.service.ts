import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import type { ChannelAdapter, InboundMessage } from '../channel.port';
import { channelConfig } from '../channel-config';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import type { InboundStatus } from '../inbound/inbound.repository';
import type { ChannelTurn } from '../turn/channel-turn';
import { ApprovalCards } from './approval-card';
import { OutboundKind, OutboundRepository, OutboundRow } from './outbound.repository';
import { LongReply, longReply } from './long-reply';
import { plainFallback, PLACEHOLDER, replyParts } from './rendering';
import { StreamPreview } from './stream-preview';

/**
 * The last stage: splits a reply into platform messages, sends each once and records it. For a turn,
 * also what the chat shows while it runs: typing, a live preview of the reply, approval cards.
 *
 * For a message that may be handled again after a crash (it has an inbound row), each part's intent
 * is recorded before the platform call that creates it, and the final text is always either an edit
 * of a recorded message or an idempotent send (Discord `nonce`). What is left is a Telegram send the
 * platform accepted just before the process died, before its id was recorded: the next attempt cannot
 * know, so it sends a fresh placeholder and leaves that one as an orphaned placeholder, never a second
 * complete reply. Orphans are logged and kept as `outbound_messages.status = 'orphaned'`.
 */
@Injectable()
export class ReplyDelivery {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly outbound: OutboundRepository,
    private readonly log: ConversationLogService,
    private readonly config: ConfigService,
    private readonly cards: ApprovalCards,
  ) {}

  /**
   * A turn's reply as it is written: typing and a live preview while it runs, an approval card when
   * it asks for one, then the final text. Says how the inbound message ends (`requeue`: the gateway
   * is stopping and the next start answers it).
   */
  async replyTo(
    adapter: ChannelAdapter,
    m: InboundMessage,
    inboundId: string,
    turn: ChannelTurn,
    recovered: boolean,
  ): Promise<Exclude<InboundStatus, 'received' | 'refused'> | 'requeue'> {
    await this.showWhileRunning(adapter, m, inboundId, turn, recovered);
    const outcome = await turn.outcome;
    if (outcome.kind === 'requeue') return 'requeue';
    try {
      await this.deliver(adapter, m, inboundId, outcome.text, 'reply', outcome.longAs);
      return outcome.status;
    } catch (e) {
      // Retries are spent (or the chat refuses us, e.g. the user blocked the bot): do not retry this at every start.
      this.logger.warn(`could not deliver the reply to ${m.channel} chat ${m.chat.id}: ${(e as Error).message}`);
      return 'failed';
    }
  }

  private async showWhileRunning(
    adapter: ChannelAdapter,
    m: InboundMessage,
    inboundId: string,
    turn: ChannelTurn,
    recovered: boolean,
  ): Promise<void> {
    const interval = channelConfig(this.config.get(), m.channel).stream_edit_interval;
    let preview: StreamPreview | undefined;
    let typing: NodeJS.Timeout | undefined;
    try {
      preview = await this.preview(adapter, m, inboundId, interval, recovered);
      typing = startTyping(adapter, m);
      const shown = preview;
      await turn.events.read((e) => {
        if (e.type === 'started') shown.begin();
        else if (e.type === 'token') shown.push(e.text);
        else if (e.type === 'progress') shown.replace(e.text);
        else
          void this.cards
            .show(adapter, m, { id: e.approvalId, name: e.tool, input: e.input, reason: e.reason, ownerOnly: e.ownerOnly })
            .catch(() => undefined);
      });
    } catch (e) {
      // The turn runs on: wait for it, so the next message of this chat never starts beside it.
      await turn.outcome.catch(() => undefined);
      throw e;
    } finally {
      clearInterval(typing);
      await preview?.close();
    }
  }

  /** A live preview for the reply to `inboundId`; after a restart (`recovered`) it resumes the preview a crashed attempt left. */
  private async preview(
    adapter: ChannelAdapter,
    m: InboundMessage,
    inboundId: string,
    intervalMs: number,
    recovered: boolean,
  ): Promise<StreamPreview> {
    const first = recovered ? await this.settle(adapter, m, lastOf(await this.outbound.forInbound(inboundId), 'reply', 0)) : undefined;
    return new StreamPreview(adapter, m.chat.id, m.threadId, intervalMs, first?.platformMessageId ?? undefined, {
      intend: (text) => this.outbound.intend({ channel: m.channel, chatId: m.chat.id, inboundId, part: 0, kind: 'reply', content: text }),
      delivered: (rowId, pid) => this.outbound.delivered(rowId, pid, 'preview'),
    });
  }

  /**
   * Delivers `text` for an inbound message exactly once, however often it is called. Replies the
   * agent did not produce (commands, notices) are also written to the conversation log. `longAs:
   * 'file'`: a very long text goes as its head and a document (the part after the head's).
   */
  async deliver(
    adapter: ChannelAdapter,
    m: InboundMessage,
    inboundId: string | undefined,
    text: string,
    kind: OutboundKind,
    longAs?: 'file',
  ): Promise<void> {
    const long = longAs === 'file' ? longReply(adapter, text, m.timestamp) : undefined;
    const parts = replyParts(adapter, long?.head ?? text);
    const rows = inboundId ? await this.outbound.forInbound(inboundId) : [];
    for (const [i, part] of parts.entries()) {
      const plain = plainFallback(adapter, part.rendered, part.markdown);
      const base = { channel: m.channel, chatId: m.chat.id, inboundId, part: i, kind, content: part.markdown };
      if (!inboundId) {
        // Nothing will retry this message: send, then record.
        const sent = await adapter.send({ chatId: m.chat.id, threadId: m.threadId, text: part.rendered, plain });
        await this.outbound.recordSent({ ...base, platformMessageId: sent.platformMessageId });
        continue;
      }
      const row = await this.settle(adapter, m, lastOf(rows, kind, i));
      if (row?.status === 'sent') continue;
      const rowId = row?.id ?? (await this.outbound.intend(base));
      let pid = row?.platformMessageId ?? undefined;
      if (!pid && (adapter.capabilities.idempotentSend || !adapter.edit)) {
        pid = (await adapter.send({ chatId: m.chat.id, threadId: m.threadId, text: part.rendered, plain, nonce: rowId })).platformMessageId;
      } else {
        if (!pid) {
          pid = (await adapter.send({ chatId: m.chat.id, threadId: m.threadId, text: PLACEHOLDER, plain: PLACEHOLDER })).platformMessageId;
          await this.outbound.delivered(rowId, pid, 'preview');
        }
        await adapter.edit?.(m.chat.id, pid, part.rendered, plain);
      }
      await this.outbound.delivered(rowId, pid, 'sent', part.markdown);
    }
    if (long) await this.deliverFile(adapter, m, inboundId, rows, { part: parts.length, kind }, long.file);
    if (kind !== 'reply') await this.log.append({ direction: 'out', channel: m.channel, endpointId: m.sender.id, content: text });
  }

  /**
   * A long reply's document, once, recorded as its text parts are: the intent before the send. With an
   * idempotent send (Discord `nonce`) a repeat returns the message it created; otherwise (Telegram) a
   * placeholder file is sent and recorded first and the answer edited into it, so a crash can leave a
   * stray placeholder, never a second copy of the answer.
   */
  private async deliverFile(
    adapter: ChannelAdapter,
    m: InboundMessage,
    inboundId: string | undefined,
    rows: OutboundRow[],
    at: { part: number; kind: OutboundKind },
    file: LongReply['file'],
  ): Promise<void> {
    const base = { channel: m.channel, chatId: m.chat.id, inboundId, ...at, content: `[file] ${file.name}` };
    const out = (content: Buffer, nonce?: string) => ({ chatId: m.chat.id, threadId: m.threadId, name: file.name, content, nonce });
    if (!inboundId) {
      const sent = await adapter.sendFile!(out(file.content));
      return this.outbound.recordSent({ ...base, platformMessageId: sent.platformMessageId });
    }
    const direct = adapter.capabilities.idempotentSend || !adapter.editFile;
    let row = lastOf(rows, at.kind, at.part);
    if (row?.status === 'sent') return;
    if (row?.status === 'sending' && !direct) row = await this.settle(adapter, m, row);
    const rowId = row?.id ?? (await this.outbound.intend(base));
    let pid = row?.platformMessageId ?? undefined;
    if (direct) pid = (await adapter.sendFile!(out(file.content, rowId))).platformMessageId;
    else {
      if (!pid) {
        pid = (await adapter.sendFile!(out(Buffer.from(PLACEHOLDER)))).platformMessageId;
        await this.outbound.delivered(rowId, pid, 'preview');
      }
      await adapter.editFile!(m.chat.id, pid, out(file.content));
    }
    await this.outbound.delivered(rowId, pid, 'sent');
  }

  /**
   * A row whose send a crash cut short (`sending`): with an idempotent send, repeating it returns the
   * message it created (or creates it), so the row gets its id; otherwise it becomes an orphan.
   */
  private async settle(adapter: ChannelAdapter, m: InboundMessage, row: OutboundRow | undefined): Promise<OutboundRow | undefined> {
    if (row?.status !== 'sending') return row;
    if (adapter.capabilities.idempotentSend) {
      const sent = await adapter.send({ chatId: m.chat.id, threadId: m.threadId, text: PLACEHOLDER, plain: PLACEHOLDER, nonce: row.id });
      await this.outbound.delivered(row.id, sent.platformMessageId, 'preview');
      return { ...row, status: 'preview', platformMessageId: sent.platformMessageId };
    }
    await this.outbound.orphan(row.id);
    this.logger.warn(
      `a ${m.channel} send to chat ${m.chat.id} was cut short by a restart and may have arrived: a fresh copy is sent ` +
        `and any earlier one stays a placeholder (outbound_messages ${row.id} marked orphaned)`,
    );
    return undefined;
  }
}

const lastOf = (rows: OutboundRow[], kind: OutboundKind, part: number) => rows.filter((r) => r.kind === kind && r.part === part).at(-1);

function startTyping(adapter: ChannelAdapter, m: InboundMessage): NodeJS.Timeout {
  const tick = () => void adapter.typing?.(m.chat.id, m.threadId).catch(() => undefined);
  tick();
  // Telegram shows "typing" for about 5 s per call.
  return setInterval(tick, 4000);
}
