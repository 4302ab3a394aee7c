import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { approvalRequired } from './approval/approval-rules';
import { ApprovalService } from './approval/approval.service';
import { configBlock, configRedact } from './hooks/config-rules.hook';

/** What the configuration (block/redact rules, approval rules) and remembered approvals say about one tool call. */
@Injectable()
export class ToolCallRules {
  constructor(
    private readonly config: ConfigService,
    private readonly approvals: ApprovalService,
  ) {}

  /** The reason a configured block rule refuses this call, if one does. */
  blocked(name: string, input: unknown): string | undefined {
    return configBlock(this.config.get().tools.hooks, name, input);
  }

  /** The output with configured redactions applied. */
  redact(name: string, output: string): string {
    return configRedact(this.config.get().tools.hooks, name, output);
  }

  /**
   * Whether a human must decide: always for a call carrying an approval note, else when the approval
   * rules say so; either way not when this exact call was remembered.
   */
  async needsApproval(name: string, input: unknown, matchKey: string, noted: boolean): Promise<boolean> {
    if (!noted && !approvalRequired(this.config.get().tools.approval, name, input)) return false;
    return !(await this.approvals.isRemembered(name, matchKey));
  }
}
