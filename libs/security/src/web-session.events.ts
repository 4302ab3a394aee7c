import { Injectable } from '@nestjs/common';
import { DatabaseNotifications } from '@nestclaw/db';

/** A sign-out (`sessionId`) or a revoked token (`tokenId`: every session it opened). Ids only, never the cookie. */
export interface WebSessionEnded {
  sessionId: string | null;
  tokenId: string | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * Tells every replica that web sessions ended (`web_session_ended` on DatabaseNotifications, as
 * `turn_cancel` is told), so each closes the WebSockets those sessions opened there. Their next HTTP
 * request is refused anyway: the cookie check reads the database.
 */
@Injectable()
export class WebSessionEvents {
  constructor(private readonly notifications: DatabaseNotifications) {}

  async ended(event: WebSessionEnded): Promise<void> {
    await this.notifications.publish('web_session_ended', { sessionId: event.sessionId, tokenId: event.tokenId });
  }

  /** Calls `handler` for each ending, from this process and the others; returns the unsubscribe. */
  onEnded(handler: (event: WebSessionEnded) => void): () => void {
    return this.notifications.subscribe('web_session_ended', (p) => handler({ sessionId: text(p.sessionId), tokenId: text(p.tokenId) }));
  }
}
