import { Injectable } from '@nestjs/common';
import { DatabaseService, mapDatabaseError, ReplicaRegistry } from '@nestclaw/db';
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
 * message id is stored once: `record` returns null for a redelivery. Each row names the replica
 * answering it (issue 24), so that recovery takes over only what a dead replica left.
 */
@Injectable()
export class InboundRepository {
  constructor(
    private readonly db: DatabaseService,
    private readonly replica: ReplicaRegistry,
  ) {}

  async record(message: InboundMessage, sessionKey: string, status: InboundStatus): Promise<string | null> {
    const { rows } = await wrap(
      this.db.pool.query<{ id: string }>(
        `INSERT INTO inbound_messages (channel, platform_message_id, chat_id, sender_id, session_key, payload, status, replica_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (channel, platform_message_id) DO NOTHING RETURNING id`,
        [
          message.channel,
          message.platformMessageId,
          message.chat.id,
          message.sender.id,
          sessionKey,
          JSON.stringify(message),
          status,
          this.replica.id,
        ],
      ),
    );
    return rows[0]?.id ?? null;
  }

  async finish(id: string, status: Exclude<InboundStatus, 'received'>): Promise<void> {
    await wrap(this.db.pool.query(`UPDATE inbound_messages SET status = $2, answered_at = now() WHERE id = $1`, [id, status]));
  }

  /**
   * Received but never answered by a replica that is gone (stopped, crashed, cut off: not
   * nestclaw_replica_alive), claimed for this replica in the same statement, oldest first. A message
   * a live replica is answering right now is never taken, and two replicas recovering at once split
   * the rows (SKIP LOCKED) instead of both answering them.
   */
  async claimUnanswered(channels: readonly string[]): Promise<StoredInbound[]> {
    const { rows } = await wrap(
      this.db.pool.query<{ id: string; session_key: string; payload: InboundMessage }>(
        `UPDATE inbound_messages SET replica_id = $2
          WHERE id IN (SELECT id FROM inbound_messages
                        WHERE status = 'received' AND channel = ANY($1) AND NOT nestclaw_replica_alive(replica_id)
                        FOR UPDATE SKIP LOCKED)
          RETURNING id, session_key, payload`,
        [[...channels], this.replica.id],
      ),
    );
    return rows
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
      .map((r) => ({ id: r.id, sessionKey: r.session_key, message: r.payload }));
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
