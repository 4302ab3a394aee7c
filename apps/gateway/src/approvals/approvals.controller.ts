import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import type { Principal } from '@nestclaw/security';
import { ApprovalService } from '@nestclaw/tool';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

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
  async list(@Query(new ZodPipe(listQuery)) q: z.output<typeof listQuery>) {
    return { approvals: await this.approvals.list(q.status, q.limit) };
  }

  @Post(':id')
  async decide(
    @Param('id') id: string,
    @Body(new ZodPipe(decisionBody)) dto: z.output<typeof decisionBody>,
    @CurrentPrincipal() principal: Principal,
  ) {
    if (!UUID.test(id)) throw new NestclawError('not_found', `Approval "${id}" does not exist`);
    const approval = await this.approvals.decide(id, dto.decision, principal.id, dto.remember ?? false);
    return { approval };
  }
}
