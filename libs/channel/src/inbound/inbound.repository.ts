import { Injectable } from '@nestjs/common';
import { DatabaseService, mapDatabaseError } from '@nestclaw/db';
import type { InboundMessage } from '../channel.port';

export type InboundStatus = 'received' | 'answered' | 'refused' | 'failed';

export interface StoredInbound {
  id: string;
  sessionKey: string;
  message: InboundMessage;
}

const wrap = <T>(p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    throw mapDatabaseError(e);
  });

/**
 * The durable inbound queue (the third stage: stored before the adapter acknowledges). A platform
 * message id is stored once: `record` returns null for a redelivery.
 */
@Injectable()
export class InboundRepository {
  constructor(private readonly db: DatabaseService) {}

  async record(message: InboundMessage, sessionKey: string, status: InboundStatus): Promise<string | null> {
    const { rows } = await wrap(
      this.db.pool.query<{ id: string }>(
        `INSERT INTO inbound_messages (channel, platform_message_id, chat_id, sender_id, session_key, payload, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (channel, platform_message_id) DO NOTHING RETURNING id`,
        [message.channel, message.platformMessageId, message.chat.id, message.sender.id, sessionKey, JSON.stringify(message), status],
      ),
    );
    return rows[0]?.id ?? null;
  }

  async finish(id: string, status: Exclude<InboundStatus, 'received'>): Promise<void> {
    await wrap(this.db.pool.query(`UPDATE inbound_messages SET status = $2, answered_at = now() WHERE id = $1`, [id, status]));
  }

  /** Received but never answered (the process stopped or crashed), oldest first. */
  async unanswered(channels: readonly string[]): Promise<StoredInbound[]> {
    const { rows } = await wrap(
      this.db.pool.query<{ id: string; session_key: string; payload: InboundMessage }>(
        `SELECT id, session_key, payload FROM inbound_messages WHERE status = 'received' AND channel = ANY($1) ORDER BY id`,
        [[...channels]],
      ),
    );
    return rows.map((r) => ({ id: r.id, sessionKey: r.session_key, message: r.payload }));
  }

  /** Newest stored message per chat of a channel (button presses excluded), for catch-up after downtime. */
  async lastSeen(channel: string, sinceDays = 7): Promise<Map<string, string>> {
    const { rows } = await wrap(
      this.db.pool.query<{ chat_id: string; platform_message_id: string }>(
        `SELECT DISTINCT ON (chat_id) chat_id, platform_message_id FROM inbound_messages
          WHERE channel = $1 AND payload->'callback' IS NULL AND received_at > now() - make_interval(days => $2)
          ORDER BY chat_id, id DESC`,
        [channel, sinceDays],
      ),
    );
    return new Map(rows.map((r) => [r.chat_id, r.platform_message_id]));
  }
}
