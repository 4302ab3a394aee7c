import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Approval, ApprovalService } from '@nestclaw/tool';
import type { PromptOutcome } from '../screen/prompt-keys';
import type { ScreenPrompt } from '../screen/screen-reader';
import type { ExchangeScope } from './exchange.types';

/**
 * A question a CLI asks on its screen becomes a tool approval like any other (the chat's buttons,
 * `GET /v1/approvals`, `/approve`), with the whole prompt as shown as its input. The CLI waits until
 * someone decides or the approval times out; nothing is approved on anyone's behalf.
 */
@Injectable()
export class PromptApprovals {
  constructor(private readonly approvals: ApprovalService) {}

  async ask(prompt: ScreenPrompt, scope: ExchangeScope, shown: (a: Approval) => void): Promise<PromptOutcome> {
    const approval = await this.approvals.request({
      sessionId: scope.sessionId,
      turnId: scope.exchangeId,
      toolCallId: `cli-prompt-${randomUUID()}`,
      tool: `cli:${scope.cli}`,
      input: { cli: scope.cli, prompt: prompt.text.split('\n') },
      matchKey: prompt.text,
      agentId: `cli:${scope.cli}`,
      channel: scope.channel,
      endpointId: scope.endpointId,
    });
    const decided = this.approvals.waitFor(approval.id, scope.signal);
    shown(approval);
    const final = await decided;
    return final.status === 'approved' ? 'approve' : final.status === 'denied' ? 'deny' : 'expired';
  }
}
