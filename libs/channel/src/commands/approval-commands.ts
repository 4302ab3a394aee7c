import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { AccessPolicy } from '../access/access-policy';
import { APPROVAL_DECIDER, ApprovalDecider, ChannelAdapter, InboundMessage } from '../channel.port';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import { renderFor } from '../delivery/rendering';
import { ReplyDelivery } from '../delivery/reply-delivery.service';

/** Tool approvals in a chat: the card with Approve / Deny buttons, the button presses, `/approve` and `/deny`. */
@Injectable()
export class ApprovalCommands {
  constructor(
    private readonly config: ConfigService,
    private readonly access: AccessPolicy,
    private readonly log: ConversationLogService,
    private readonly delivery: ReplyDelivery,
    @Inject(APPROVAL_DECIDER) private readonly approvals: ApprovalDecider,
  ) {}

  async decide(m: InboundMessage, id: string | undefined, decision: 'approve' | 'deny'): Promise<string> {
    if (!id) return `Usage: ${this.config.get().channels.command_prefix}${decision} <id>`;
    if (!this.access.isApprover(m)) return 'You are not allowed to decide approvals.';
    const r = await this.approvals.decide(id, decision, `${m.channel}:${m.sender.id}`);
    return r.message ?? (r.ok ? `${decision === 'approve' ? 'Approved' : 'Denied'} ${id}.` : `Could not ${decision} ${id}.`);
  }

  /** A button press: `ap:<id>:a|d`. */
  async callback(adapter: ChannelAdapter, m: InboundMessage): Promise<void> {
    const match = /^ap:(.+):([ad])$/.exec(m.callback?.data ?? '');
    if (!match) {
      await adapter.answerCallback?.(m.callback!.id);
      return;
    }
    const decision = match[2] === 'a' ? 'approve' : 'deny';
    if (!this.access.isApprover(m)) {
      await this.log.append({
        direction: 'refused',
        channel: m.channel,
        endpointId: m.sender.id,
        content: `[button ${decision} ${match[1]}]`,
      });
      await adapter.answerCallback?.(m.callback!.id, 'You are not allowed to decide approvals.');
      return;
    }
    const text = await this.decide(m, match[1], decision);
    await this.log.append({ direction: 'in', channel: m.channel, endpointId: m.sender.id, content: `[button ${decision} ${match[1]}]` });
    await adapter.answerCallback?.(m.callback!.id, text.slice(0, 190));
    if (m.callback?.messageId && adapter.edit) {
      await adapter.edit(m.chat.id, m.callback.messageId, renderFor(adapter)(text), text).catch(() => undefined);
    }
  }

  /** Shows a pending approval in the chat the run came from, with Approve / Deny buttons. */
  async ask(
    adapter: ChannelAdapter,
    m: InboundMessage,
    req: { id: string; name?: string; input?: unknown; reason?: string | null; ownerOnly?: boolean },
  ): Promise<void> {
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
    await this.delivery.card(adapter, m, text, buttons).catch(() => undefined);
  }
}
