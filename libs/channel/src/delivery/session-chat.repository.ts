import { Injectable } from '@nestjs/common';
import type { DeliveryTarget } from '@nestclaw/agent';
import { DatabaseService } from '@nestclaw/db';

/** Which chat a channel session belongs to, from the last message received in it. */
@Injectable()
export class SessionChatRepository {
  constructor(private readonly db: DatabaseService) {}

  async chatOf(sessionId: string): Promise<DeliveryTarget | undefined> {
    const { rows } = await this.db.query<{ channel: string; chatId: string; threadId: string | null }>(
      `SELECT i.channel, i.payload->'chat'->>'id' AS "chatId", i.payload->>'threadId' AS "threadId"
         FROM channel_sessions s JOIN inbound_messages i ON i.session_key = s.session_key
        WHERE s.session_id = $1 ORDER BY i.id DESC LIMIT 1`,
      [sessionId],
    );
    const r = rows[0];
    if (!r?.chatId) return undefined;
    return r.threadId ? { channel: r.channel, chatId: r.chatId, threadId: r.threadId } : { channel: r.channel, chatId: r.chatId };
  }
}
