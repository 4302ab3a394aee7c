import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { AccessPolicy } from '../access/access-policy';
import { APPROVAL_DECIDER, ApprovalDecider, ChannelAdapter, InboundMessage } from '../channel.port';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import { ApprovalCards } from '../delivery/approval-card';

/** Deciding tool approvals from a chat: the button presses on an approval card, `/approve` and `/deny`. */
@Injectable()
export class ApprovalCommands {
  constructor(
    private readonly config: ConfigService,
    private readonly access: AccessPolicy,
    private readonly log: ConversationLogService,
    private readonly cards: ApprovalCards,
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
    await this.cards.decided(adapter, m, text);
  }
}
