import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import type { ChannelAdapter, InboundMessage } from '../channel.port';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import { OutboundRepository } from './outbound.repository';
import { plainFallback, renderFor, replyParts } from './rendering';

/** A tool call waiting for a decision, as the agent reports it. */
export interface ApprovalRequest {
  id: string;
  name?: string;
  input?: unknown;
  reason?: string | null;
  ownerOnly?: boolean;
}

/**
 * Approval cards in a chat: the card with Approve / Deny buttons shown while a run waits, and the
 * card edited into the decision once someone presses a button.
 */
@Injectable()
export class ApprovalCards {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly config: ConfigService,
    private readonly outbound: OutboundRepository,
    private readonly log: ConversationLogService,
  ) {}

  /** Shows a pending approval in the chat the run came from. Never retried, so recorded once it is sent. */
  async show(adapter: ChannelAdapter, m: InboundMessage, req: ApprovalRequest): Promise<void> {
    const p = this.config.get().channels.command_prefix;
    const input = req.input === undefined ? '' : `\n\n\`\`\`\n${JSON.stringify(req.input, null, 2).slice(0, 1500)}\n\`\`\``;
    // A write that shapes every conversation says so above the buttons, where the decision is made.
    const shapes = req.reason
      ? `\n\n⚠ Shapes every conversation: ${req.reason}.${req.ownerOnly ? ' Only the owner can approve it.' : ''}`
      : '';
    const text = `Approval needed: **${req.name ?? 'tool call'}**${input}${shapes}\n\nOr reply ${p}approve ${req.id} / ${p}deny ${req.id}`;
    const buttons = adapter.capabilities.buttons
      ? [
          [
            { text: 'Approve', data: `ap:${req.id}:a` },
            { text: 'Deny', data: `ap:${req.id}:d` },
          ],
        ]
      : undefined;
    const [first, ...rest] = replyParts(adapter, text);
    const sent = await adapter.send({
      chatId: m.chat.id,
      threadId: m.threadId,
      text: first.rendered,
      plain: plainFallback(adapter, first.rendered, first.markdown),
      buttons,
    });
    const base = { channel: m.channel, chatId: m.chat.id, part: 0, kind: 'approval' as const, content: first.markdown };
    await this.outbound.recordSent({ ...base, platformMessageId: sent.platformMessageId });
    if (rest.length) this.logger.warn(`an approval card for chat ${m.chat.id} was cut to one message`);
    await this.log.append({ direction: 'out', channel: m.channel, endpointId: m.sender.id, content: text });
  }

  /** A button press was decided: the card it came from shows the outcome in place of its buttons. */
  async decided(adapter: ChannelAdapter, m: InboundMessage, text: string): Promise<void> {
    if (m.callback?.messageId && adapter.edit) {
      await adapter.edit(m.chat.id, m.callback.messageId, renderFor(adapter)(text), text).catch(() => undefined);
    }
  }
}
