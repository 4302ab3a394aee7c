import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { AuditService } from '@nestclaw/tool';
import { RequireScope } from '../auth/require-scope.decorator';
import { ZodPipe } from '../http/zod-validation.pipe';

const query = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.coerce.number().int().positive().optional(),
  action: z.string().max(100).optional(),
});

/** The audit trail, newest first; page with `?before=<id of the last entry>`. */
@Controller('v1/audit')
@RequireScope('admin')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  async list(@Query(new ZodPipe(query)) q: z.output<typeof query>) {
    const entries = await this.audit.page(q.limit, q.before, q.action);
    return { entries, next: entries.length === q.limit ? entries[entries.length - 1].id : null };
  }
}
