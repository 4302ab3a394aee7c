import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { SESSION_ID_PATTERN } from './session-key';
import { SessionRepository } from './session.repository';
import type { SessionFilter, SessionSummary, StoredMessage } from './session.types';

/** Sessions as the admin API reads them: the most recent ones and a transcript page. */
@Injectable()
export class SessionsService {
  constructor(private readonly sessions: SessionRepository) {}

  /** Most recently active first, those the filter matches; page with `before` = the updatedAt of the last one. */
  list(limit: number, before?: Date, filter: SessionFilter = {}): Promise<SessionSummary[]> {
    return this.sessions.listRecent(limit, before, filter);
  }

  /**
   * A page of the transcript in order: after `page.after`, or just before `page.before` ('end': the
   * newest page, how a long conversation is opened); `session_not_found` when there is no such session.
   */
  async transcript(sessionId: string, page: { after: number } | { before: number | 'end' }, limit: number): Promise<StoredMessage[]> {
    if (!SESSION_ID_PATTERN.test(sessionId) || !(await this.sessions.exists(sessionId))) {
      throw new NestclawError('session_not_found', `Session "${sessionId}" does not exist`);
    }
    if ('after' in page) return this.sessions.listMessages(sessionId, page.after, limit);
    return this.sessions.listMessagesBefore(sessionId, page.before === 'end' ? null : page.before, limit);
  }
}
