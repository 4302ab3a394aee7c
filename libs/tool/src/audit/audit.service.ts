import { Injectable } from '@nestjs/common';
import { AuditEntry, AuditRecord, AuditRepository } from './audit.repository';

/** The audit trail as the admin API reads it (the repository stays inside the tool lib). */
@Injectable()
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  /** A row for an action outside the tool lib (the CLI bridge's inputs and answers); never throws, as the repository's. */
  record(e: AuditEntry): Promise<void> {
    return this.audit.record(e);
  }

  /** Newest first; page with `before` = the last id seen. */
  page(limit: number, before?: number, action?: string): Promise<AuditRecord[]> {
    return this.audit.page(limit, before, action);
  }
}
