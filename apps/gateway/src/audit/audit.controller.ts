import { Controller, Get, Query } from '@nestjs/common';
import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import { AuditRepository } from '@nestclaw/tool';
import { RequireScope } from '../auth/require-scope.decorator';

const query = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.coerce.number().int().positive().optional(),
  action: z.string().max(100).optional(),
});

/** The audit trail, newest first; page with `?before=<id of the last entry>`. */
@Controller('v1/audit')
@RequireScope('admin')
export class AuditController {
  constructor(private readonly audit: AuditRepository) {}

  @Get()
  async list(@Query() q: unknown) {
    const r = query.safeParse(q ?? {});
    if (!r.success) throw new NestclawError('invalid_request', `Invalid query: ${r.error.issues.map((i) => i.message).join('; ')}`);
    const entries = await this.audit.page(r.data.limit, r.data.before, r.data.action);
    return { entries, next: entries.length === r.data.limit ? entries[entries.length - 1].id : null };
  }
}
