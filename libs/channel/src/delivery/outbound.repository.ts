import { Injectable } from '@nestjs/common';
import { DatabaseService, mapDatabaseError } from '@nestclaw/db';

export type OutboundKind = 'reply' | 'notice' | 'pairing' | 'command' | 'approval' | 'job';
export type OutboundStatus = 'sending' | 'preview' | 'sent' | 'orphaned';

export interface OutboundRow {
  id: string;
  kind: OutboundKind;
  part: number;
  status: OutboundStatus;
  platformMessageId: string | null;
}

export interface NewOutbound {
  channel: string;
  chatId: string;
  inboundId?: string;
  /** The scheduled job (or heartbeat) run whose answer this is. */
  jobRunId?: string;
  part: number;
  kind: OutboundKind;
  content: string;
}

const wrap = <T>(p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    throw mapDatabaseError(e);
  });

/**
 * The outbound send record. A row is written before the platform call that may create a message
 * (`sending`: the delivery intent), then carries the platform id (`preview` / `sent`); recovery
 * reads it to edit or skip instead of sending again.
 */
@Injectable()
export class OutboundRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Records the intent to send; the row id doubles as the idempotency key (Discord `nonce`). */
  async intend(o: NewOutbound): Promise<string> {
    const { rows } = await wrap(
      this.db.pool.query<{ id: string }>(
        `INSERT INTO outbound_messages (channel, chat_id, inbound_id, part, kind, content, status, job_run_id)
         VALUES ($1, $2, $3, $4, $5, $6, 'sending', $7) RETURNING id::text`,
        [o.channel, o.chatId, o.inboundId ?? null, o.part, o.kind, o.content, o.jobRunId ?? null],
      ),
    );
    return rows[0].id;
  }

  /** The platform accepted the message (`preview`: placeholder or partial text, `sent`: the final text). */
  async delivered(id: string, platformMessageId: string, status: 'preview' | 'sent', content?: string): Promise<void> {
    await wrap(
      this.db.pool.query(
        `UPDATE outbound_messages SET platform_message_id = $2, status = $3, content = coalesce($4, content) WHERE id = $1`,
        [id, platformMessageId, status, content ?? null],
      ),
    );
  }

  /** A message sent whole, recorded after the fact (no inbound message to retry, so no intent is needed). */
  async recordSent(o: NewOutbound & { platformMessageId: string }): Promise<void> {
    await wrap(
      this.db.pool.query(
        `INSERT INTO outbound_messages (channel, chat_id, inbound_id, part, kind, platform_message_id, content, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'sent')`,
        [o.channel, o.chatId, o.inboundId ?? null, o.part, o.kind, o.platformMessageId, o.content],
      ),
    );
  }

  /** A send whose outcome a crash hid and that cannot be repeated safely: left as it is, counted. */
  async orphan(id: string): Promise<void> {
    await wrap(this.db.pool.query(`UPDATE outbound_messages SET status = 'orphaned' WHERE id = $1`, [id]));
  }

  /** What was already sent (or attempted) for a job run's answer, oldest first; orphans left out. */
  async forJobRun(jobRunId: string): Promise<OutboundRow[]> {
    const { rows } = await wrap(
      this.db.pool.query<OutboundRow>(
        `SELECT id::text AS id, kind, part, status, platform_message_id AS "platformMessageId"
           FROM outbound_messages WHERE job_run_id = $1 AND status <> 'orphaned' ORDER BY id`,
        [jobRunId],
      ),
    );
    return rows;
  }

  /** What was already sent (or attempted) for an inbound message, oldest first; orphans left out. */
  async forInbound(inboundId: string): Promise<OutboundRow[]> {
    const { rows } = await wrap(
      this.db.pool.query<OutboundRow>(
        `SELECT id::text AS id, kind, part, status, platform_message_id AS "platformMessageId"
           FROM outbound_messages WHERE inbound_id = $1 AND status <> 'orphaned' ORDER BY id`,
        [inboundId],
      ),
    );
    return rows;
  }
}
