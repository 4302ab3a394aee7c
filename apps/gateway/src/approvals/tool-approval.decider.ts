import { isNestclawError } from '@nestclaw/common';
import type { ApprovalDecider } from '@nestclaw/channel';
import type { ApprovalService } from '@nestclaw/tool';

/**
 * Channel buttons and /approve, /deny → the tool layer's ApprovalService. Wired here, at the
 * composition root, so the channel lib never imports the tool lib (docs/adr/0007-module-boundaries.md).
 */
export function toolApprovalDecider(approvals: ApprovalService): ApprovalDecider {
  return {
    async decide(id, decision, decidedBy) {
      try {
        const a = await approvals.decide(id, decision, decidedBy);
        return { ok: true, message: `${a.status === 'approved' ? 'Approved' : 'Denied'}: ${a.tool} (${id.slice(0, 8)}).` };
      } catch (e) {
        // Unknown, already decided or the owner's to approve: tell the person pressing the button, do not crash the channel.
        if (isNestclawError(e) && (e.code === 'not_found' || e.code === 'conflict' || e.code === 'forbidden'))
          return { ok: false, message: e.message };
        throw e;
      }
    },
  };
}
