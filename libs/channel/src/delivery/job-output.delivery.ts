import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DeliveryTarget, JobOutput, JobOutputPort, JobOutputSink } from '@nestclaw/agent';
import type { ChannelAdapter } from '../channel.port';
import { ChannelRegistry } from '../channel.registry';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import { OutboundRepository, OutboundRow } from './outbound.repository';
import { plainFallback, PLACEHOLDER, replyParts } from './rendering';
import { SessionChatRepository } from './session-chat.repository';

/**
 * Sends scheduled-job and heartbeat answers to their chat. The agent lib only defines the port
 * (JobOutputPort): this lib attaches to it at start, because channel → agent is the allowed
 * direction and the scheduler must not know any platform. Each part is recorded in
 * outbound_messages under its job run before the platform call, as replies are (ReplyDelivery):
 * a retry after a crash edits the recorded message or skips it, and a Telegram send the crash hid
 * leaves at most an orphaned placeholder, never a second copy of the answer.
 */
@Injectable()
export class JobOutputDelivery implements JobOutputSink, OnModuleInit {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly port: JobOutputPort,
    private readonly registry: ChannelRegistry,
    private readonly outbound: OutboundRepository,
    private readonly chats: SessionChatRepository,
    private readonly log: ConversationLogService,
  ) {}

  onModuleInit(): void {
    this.port.attach(this);
  }

  targetOf(sessionId: string): Promise<DeliveryTarget | undefined> {
    return this.chats.chatOf(sessionId);
  }

  async deliver(o: JobOutput): Promise<void> {
    const adapter = this.registry.get(o.target.channel);
    if (!adapter) throw new Error(`channel ${o.target.channel} is not running`);
    const { chatId, threadId } = o.target;
    const rows = await this.outbound.forJobRun(o.runId);
    for (const [i, part] of replyParts(adapter, o.text).entries()) {
      const plain = plainFallback(adapter, part.rendered, part.markdown);
      const row = await this.settle(adapter, o, rows.filter((r) => r.part === i).at(-1));
      if (row?.status === 'sent') continue;
      const rowId =
        row?.id ??
        (await this.outbound.intend({
          channel: o.target.channel,
          chatId,
          jobRunId: o.runId,
          part: i,
          kind: 'job',
          content: part.markdown,
        }));
      let pid = row?.platformMessageId ?? undefined;
      if (!pid && (adapter.capabilities.idempotentSend || !adapter.edit)) {
        pid = (await adapter.send({ chatId, threadId, text: part.rendered, plain, nonce: rowId })).platformMessageId;
      } else {
        if (!pid) {
          pid = (await adapter.send({ chatId, threadId, text: PLACEHOLDER, plain: PLACEHOLDER })).platformMessageId;
          await this.outbound.delivered(rowId, pid, 'preview');
        }
        await adapter.edit?.(chatId, pid, part.rendered, plain);
      }
      await this.outbound.delivered(rowId, pid, 'sent', part.markdown);
    }
    await this.log.append({ direction: 'out', channel: o.target.channel, endpointId: chatId, content: o.text });
  }

  /** A send a crash cut short: repeated under its key where the platform has one, else left as an orphan. */
  private async settle(adapter: ChannelAdapter, o: JobOutput, row: OutboundRow | undefined): Promise<OutboundRow | undefined> {
    if (row?.status !== 'sending') return row;
    if (adapter.capabilities.idempotentSend) return { ...row, status: 'sending', platformMessageId: null };
    await this.outbound.orphan(row.id);
    this.logger.warn(
      `the answer of ${o.kind} run ${o.runId} to ${o.target.channel} chat ${o.target.chatId} was cut short by a restart: ` +
        `sending a fresh copy (outbound_messages ${row.id} marked orphaned)`,
    );
    return undefined;
  }
}
