import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { DatabaseService } from '@nestclaw/db';
import { channelPairingCode, normalizeCode } from './pairing-code';
import { SensitiveConfigService } from './sensitive-config.service';

export const CHANNEL_CODE_TTL_MS = 60 * 60_000;
export const MAX_PENDING_PER_CHANNEL = 3;

export interface PairingRequest {
  channel: string;
  code: string;
  senderId: string;
  senderName: string | null;
  chatId: string;
  createdAt: string;
  expiresAt: string;
}

/** What a stranger's DM leads to: their (new or still valid) code, or none when too many are pending. */
export type PairingOutcome = { kind: 'code'; code: string; isNew: boolean } | { kind: 'too_many_pending' };

/**
 * Who may talk to the assistant on a chat channel: `allow_from` in config merged with the persisted
 * allowlist that pairing approvals add to. Strangers get a one-time code the owner approves.
 */
@Injectable()
export class ChannelAccessService {
  constructor(
    private readonly db: DatabaseService,
    private readonly settings: SensitiveConfigService,
  ) {}

  private configured(channel: string): string[] {
    return this.settings.channel(channel).allow_from;
  }

  async isAllowed(channel: string, senderId: string): Promise<boolean> {
    if (this.configured(channel).includes(senderId)) return true;
    const { rowCount } = await this.db.pool.query(`SELECT 1 FROM channel_allowlist WHERE channel = $1 AND sender_id = $2`, [
      channel,
      senderId,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async allowlist(channel: string): Promise<{ senderId: string; source: 'config' | 'paired'; displayName: string | null }[]> {
    const { rows } = await this.db.pool.query<{ sender_id: string; display_name: string | null }>(
      `SELECT sender_id, display_name FROM channel_allowlist WHERE channel = $1 ORDER BY created_at`,
      [channel],
    );
    return [
      ...this.configured(channel).map((senderId) => ({ senderId, source: 'config' as const, displayName: null })),
      ...rows.map((r) => ({ senderId: r.sender_id, source: 'paired' as const, displayName: r.display_name })),
    ];
  }

  /**
   * A stranger wrote: reuse their pending code, or issue one unless the channel already has three
   * pending (a flood of strangers must not fill the owner's approval list).
   */
  async requestPairing(channel: string, sender: { id: string; name?: string; chatId: string }): Promise<PairingOutcome> {
    return this.db.transaction(async (tx) => {
      // Serialize pairing per channel so the pending cap holds under concurrent strangers.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('channel_pairing:' || $1))`, [channel]);
      const { rows: mine } = await tx.query<{ code: string }>(
        `SELECT code FROM channel_pairing_codes
          WHERE channel = $1 AND sender_id = $2 AND approved_at IS NULL AND expires_at > now() ORDER BY id DESC LIMIT 1`,
        [channel, sender.id],
      );
      if (mine[0]) return { kind: 'code' as const, code: mine[0].code, isNew: false };
      const { rows: pending } = await tx.query<{ n: string }>(
        `SELECT count(*) AS n FROM channel_pairing_codes WHERE channel = $1 AND approved_at IS NULL AND expires_at > now()`,
        [channel],
      );
      if (Number(pending[0].n) >= MAX_PENDING_PER_CHANNEL) return { kind: 'too_many_pending' as const };
      const code = channelPairingCode();
      await tx.query(
        `INSERT INTO channel_pairing_codes (channel, code, sender_id, sender_name, chat_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [channel, code, sender.id, sender.name ?? null, sender.chatId, new Date(Date.now() + CHANNEL_CODE_TTL_MS)],
      );
      return { kind: 'code' as const, code, isNew: true };
    });
  }

  async pending(channel?: string): Promise<PairingRequest[]> {
    const { rows } = await this.db.pool.query<{
      channel: string;
      code: string;
      sender_id: string;
      sender_name: string | null;
      chat_id: string;
      created_at: Date;
      expires_at: Date;
    }>(
      `SELECT channel, code, sender_id, sender_name, chat_id, created_at, expires_at FROM channel_pairing_codes
        WHERE approved_at IS NULL AND expires_at > now() AND ($1::text IS NULL OR channel = $1) ORDER BY id`,
      [channel ?? null],
    );
    return rows.map((r) => ({
      channel: r.channel,
      code: r.code,
      senderId: r.sender_id,
      senderName: r.sender_name,
      chatId: r.chat_id,
      createdAt: r.created_at.toISOString(),
      expiresAt: r.expires_at.toISOString(),
    }));
  }

  /** Approves a pending code: the sender joins the persisted allowlist. */
  async approve(channel: string, code: string, approvedBy: string): Promise<PairingRequest> {
    const normalized = normalizeCode(code);
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{
        sender_id: string;
        sender_name: string | null;
        chat_id: string;
        created_at: Date;
        expires_at: Date;
      }>(
        `UPDATE channel_pairing_codes SET approved_at = now()
          WHERE channel = $1 AND code = $2 AND approved_at IS NULL AND expires_at > now()
          RETURNING sender_id, sender_name, chat_id, created_at, expires_at`,
        [channel, normalized],
      );
      const r = rows[0];
      if (!r) throw new NestclawError('not_found', `No pending pairing code ${normalized} on ${channel} (wrong, expired or already used)`);
      await tx.query(
        `INSERT INTO channel_allowlist (channel, sender_id, display_name, added_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (channel, sender_id) DO NOTHING`,
        [channel, r.sender_id, r.sender_name, approvedBy],
      );
      return {
        channel,
        code: normalized,
        senderId: r.sender_id,
        senderName: r.sender_name,
        chatId: r.chat_id,
        createdAt: r.created_at.toISOString(),
        expiresAt: r.expires_at.toISOString(),
      };
    });
  }

  async revoke(channel: string, senderId: string): Promise<boolean> {
    const { rowCount } = await this.db.pool.query(`DELETE FROM channel_allowlist WHERE channel = $1 AND sender_id = $2`, [
      channel,
      senderId,
    ]);
    return (rowCount ?? 0) > 0;
  }
}
