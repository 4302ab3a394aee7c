import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DatabaseService, viaPrisma } from '@nestclaw/db';

export interface PairingCodeRow {
  channel: string;
  code: string;
  sender_id: string;
  sender_name: string | null;
  chat_id: string;
  created_at: Date;
  expires_at: Date;
  denied_at: Date | null;
  denied_by: string | null;
}

const ROW = `channel, code, sender_id, sender_name, chat_id, created_at, expires_at, denied_at, denied_by`;
const SELECT = {
  channel: true,
  code: true,
  senderId: true,
  senderName: true,
  chatId: true,
  createdAt: true,
  expiresAt: true,
  deniedAt: true,
  deniedBy: true,
} as const;
const fromPrisma = (r: {
  channel: string;
  code: string;
  senderId: string;
  senderName: string | null;
  chatId: string;
  createdAt: Date;
  expiresAt: Date;
  deniedAt: Date | null;
  deniedBy: string | null;
}): PairingCodeRow => ({
  channel: r.channel,
  code: r.code,
  sender_id: r.senderId,
  sender_name: r.senderName,
  chat_id: r.chatId,
  created_at: r.createdAt,
  expires_at: r.expiresAt,
  denied_at: r.deniedAt,
  denied_by: r.deniedBy,
});

/**
 * `channel_allowlist` and `channel_pairing_codes`. The owner's list/remove/pending reads go through
 * Prisma; raw pg stays where the channel inbound path runs (`isPaired` on every message) and in the
 * pairing transaction, which holds an advisory lock Prisma cannot take. Methods taking `tx` run inside
 * the caller's transaction.
 */
@Injectable()
export class ChannelAccessRepository {
  constructor(private readonly db: DatabaseService) {}

  transaction<T>(fn: (tx: PoolClient) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async isPaired(channel: string, senderId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(`SELECT 1 FROM channel_allowlist WHERE channel = $1 AND sender_id = $2`, [channel, senderId]);
    return (rowCount ?? 0) > 0;
  }

  async listPaired(channel: string): Promise<{ sender_id: string; display_name: string | null; added_by: string; created_at: Date }[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.channelAllowlist.findMany({
        where: { channel },
        orderBy: { createdAt: 'asc' },
        select: { senderId: true, displayName: true, addedBy: true, createdAt: true },
      }),
    );
    return rows.map((r) => ({ sender_id: r.senderId, display_name: r.displayName, added_by: r.addedBy, created_at: r.createdAt }));
  }

  async removePaired(channel: string, senderId: string): Promise<boolean> {
    const { count } = await viaPrisma(() => this.db.prisma.channelAllowlist.deleteMany({ where: { channel, senderId } }));
    return count > 0;
  }

  /** Serializes pairing on one channel until the transaction ends, so the pending cap holds under concurrent strangers. */
  async lockChannel(tx: PoolClient, channel: string): Promise<void> {
    await this.db.query(`SELECT pg_advisory_xact_lock(hashtext('channel_pairing:' || $1))`, [channel], { client: tx });
  }

  async findPendingCode(tx: PoolClient, channel: string, senderId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ code: string }>(
      `SELECT code FROM channel_pairing_codes
        WHERE channel = $1 AND sender_id = $2 AND approved_at IS NULL AND expires_at > now() ORDER BY id DESC LIMIT 1`,
      [channel, senderId],
      { client: tx },
    );
    return rows[0]?.code ?? null;
  }

  async countPending(tx: PoolClient, channel: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM channel_pairing_codes WHERE channel = $1 AND approved_at IS NULL AND expires_at > now()`,
      [channel],
      { client: tx },
    );
    return Number(rows[0].n);
  }

  async insertCode(
    tx: PoolClient,
    code: { channel: string; code: string; senderId: string; senderName: string | null; chatId: string; expiresAt: Date },
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO channel_pairing_codes (channel, code, sender_id, sender_name, chat_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [code.channel, code.code, code.senderId, code.senderName, code.chatId, code.expiresAt],
      { client: tx },
    );
  }

  async listPending(channel?: string): Promise<PairingCodeRow[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.channelPairingCode.findMany({
        where: { approvedAt: null, expiresAt: { gt: new Date() }, ...(channel === undefined ? {} : { channel }) },
        orderBy: { id: 'asc' },
        select: SELECT,
      }),
    );
    return rows.map(fromPrisma);
  }

  /** The latest denied requests, newest first: who turned whom down stays visible to the owner. */
  async listDenied(channel: string | undefined, limit: number): Promise<PairingCodeRow[]> {
    const rows = await viaPrisma(() =>
      this.db.prisma.channelPairingCode.findMany({
        where: { deniedAt: { not: null }, ...(channel === undefined ? {} : { channel }) },
        orderBy: { deniedAt: 'desc' },
        take: limit,
        select: SELECT,
      }),
    );
    return rows.map(fromPrisma);
  }

  /** Approves a live code; the row, or null when wrong, expired or already used. */
  async approveCode(tx: PoolClient, channel: string, code: string): Promise<PairingCodeRow | null> {
    const { rows } = await this.db.query<PairingCodeRow>(
      `UPDATE channel_pairing_codes SET approved_at = now()
        WHERE channel = $1 AND code = $2 AND approved_at IS NULL AND expires_at > now()
        RETURNING ${ROW}`,
      [channel, code],
      { client: tx },
    );
    return rows[0] ?? null;
  }

  /**
   * Ends a live code without adding its sender (expired now, the row kept with who denied it); the
   * row, or null when wrong, expired or already used.
   */
  async denyCode(channel: string, code: string, deniedBy: string): Promise<PairingCodeRow | null> {
    const { rows } = await this.db.query<PairingCodeRow>(
      `UPDATE channel_pairing_codes SET expires_at = now(), denied_at = now(), denied_by = $3
        WHERE channel = $1 AND code = $2 AND approved_at IS NULL AND expires_at > now()
        RETURNING ${ROW}`,
      [channel, code, deniedBy],
    );
    return rows[0] ?? null;
  }

  async addPaired(tx: PoolClient, channel: string, senderId: string, displayName: string | null, addedBy: string): Promise<void> {
    await this.db.query(
      `INSERT INTO channel_allowlist (channel, sender_id, display_name, added_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (channel, sender_id) DO NOTHING`,
      [channel, senderId, displayName, addedBy],
      { client: tx },
    );
  }
}
