import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import type { Principal } from '@nestclaw/security';
import { ApprovalService } from '@nestclaw/tool';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { parseBody } from '../http/zod-body.pipe';

const listQuery = z.object({
  status: z.enum(['pending', 'approved', 'denied', 'expired']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const decisionBody = z.object({ decision: z.enum(['approve', 'deny']), remember: z.boolean().optional() });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Tool-call approvals: list and decide. Deciding resumes the paused turn (even after a restart). */
@Controller('v1/approvals')
@RequireScope('approve')
export class ApprovalsController {
  constructor(private readonly approvals: ApprovalService) {}

  @Get()
  async list(@Query() query: unknown) {
    const r = listQuery.safeParse(query ?? {});
    if (!r.success) throw new NestclawError('invalid_request', `Invalid query: ${r.error.issues.map((i) => i.message).join('; ')}`);
    return { approvals: await this.approvals.list(r.data.status, r.data.limit) };
  }

  @Post(':id')
  async decide(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() principal: Principal) {
    const dto = parseBody(decisionBody, body);
    if (!UUID.test(id)) throw new NestclawError('not_found', `Approval "${id}" does not exist`);
    const approval = await this.approvals.decide(id, dto.decision, principal.id, dto.remember ?? false);
    return { approval };
  }
}
