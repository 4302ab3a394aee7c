import { Injectable } from '@nestjs/common';
import { AuditRecord, AuditRepository } from './audit.repository';

/** The audit trail as the admin API reads it (the repository stays inside the tool lib). */
@Injectable()
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  /** Newest first; page with `before` = the last id seen. */
  page(limit: number, before?: number, action?: string): Promise<AuditRecord[]> {
    return this.audit.page(limit, before, action);
  }
}
