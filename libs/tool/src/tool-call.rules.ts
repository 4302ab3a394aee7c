import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { approvalRule } from './approval/approval-rules';
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
   * Why a human must decide, or undefined: always for a call the tool itself asks about (`toolAsks`: an
   * approval note, or a tool that always asks), else when the approval rules say so; either way not when
   * this exact call was remembered.
   */
  async approvalRule(name: string, input: unknown, matchKey: string, toolAsks: string | undefined): Promise<string | undefined> {
    const rule = toolAsks ?? approvalRule(this.config.get().tools.approval, name, input);
    if (rule === undefined) return undefined;
    return (await this.approvals.isRemembered(name, matchKey)) ? undefined : rule;
  }
}
