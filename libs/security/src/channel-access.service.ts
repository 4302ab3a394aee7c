import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { ChannelAccessRepository, PairingCodeRow } from './channel-access.repository';
import { channelPairingCode, normalizeCode } from './pairing-code';
import { SensitiveConfigService } from './sensitive-config.service';

export const CHANNEL_CODE_TTL_MS = 60 * 60_000;
export const MAX_PENDING_PER_CHANNEL = 3;
/** Denied requests the owner's list shows: enough to see who decided lately, never the whole history. */
export const DENIED_LISTED = 50;

export interface PairingRequest {
  channel: string;
  code: string;
  senderId: string;
  senderName: string | null;
  chatId: string;
  createdAt: string;
  expiresAt: string;
  /** When and by whom (the principal's name) the request was turned down; null unless denied. */
  deniedAt: string | null;
  deniedBy: string | null;
}

/** One sender allowed on a channel: from `allow_from` in config, or approved through pairing (when, by whom). */
export interface AllowedSender {
  senderId: string;
  source: 'config' | 'paired';
  displayName: string | null;
  /** The principal's name that approved the pairing; null for config entries. */
  addedBy: string | null;
  addedAt: string | null;
}

/**
 * A channel's access as in force: its allowlist, and what anyone else meets: in a DM a pairing code
 * the owner approves (AccessPolicy); in a group `allowlist` (refused), `open` (answered) or `disabled`
 * (ignored), and only when mentioned if `requireMention`.
 */
export interface ChannelAccess {
  channel: string;
  strangers: { dm: 'pair'; groups: 'allowlist' | 'open' | 'disabled'; requireMention: boolean };
  allowlist: AllowedSender[];
}

/** What a stranger's DM leads to: their (new or still valid) code, or none when too many are pending. */
export type PairingOutcome = { kind: 'code'; code: string; isNew: boolean } | { kind: 'too_many_pending' };

/**
 * Who may talk to the assistant on a chat channel: `allow_from` in config merged with the persisted
 * allowlist that pairing approvals add to. Strangers get a one-time code the owner approves.
 */
const toRequest = (r: PairingCodeRow): PairingRequest => ({
  channel: r.channel,
  code: r.code,
  senderId: r.sender_id,
  senderName: r.sender_name,
  chatId: r.chat_id,
  createdAt: r.created_at.toISOString(),
  expiresAt: r.expires_at.toISOString(),
  deniedAt: r.denied_at?.toISOString() ?? null,
  deniedBy: r.denied_by,
});

@Injectable()
export class ChannelAccessService {
  constructor(
    private readonly access: ChannelAccessRepository,
    private readonly settings: SensitiveConfigService,
  ) {}

  private configured(channel: string): string[] {
    return this.settings.channel(channel).allow_from;
  }

  async isAllowed(channel: string, senderId: string): Promise<boolean> {
    return this.configured(channel).includes(senderId) || (await this.access.isPaired(channel, senderId));
  }

  async allowlist(channel: string): Promise<AllowedSender[]> {
    const rows = await this.access.listPaired(channel);
    const none = { displayName: null, addedBy: null, addedAt: null };
    return [
      ...this.configured(channel).map((senderId) => ({ senderId, source: 'config' as const, ...none })),
      ...rows.map((r) => ({
        senderId: r.sender_id,
        source: 'paired' as const,
        displayName: r.display_name,
        addedBy: r.added_by,
        addedAt: r.created_at.toISOString(),
      })),
    ];
  }

  /**
   * Who may talk to the assistant on `channel` as in force now (the confirmed settings, not the file):
   * the allowlist and what happens to anyone else, in DMs (a pairing code, always) and in groups.
   */
  async accessOf(channel: string): Promise<ChannelAccess> {
    const cfg = this.settings.channel(channel);
    return {
      channel,
      strangers: { dm: 'pair', groups: cfg.group_policy, requireMention: cfg.require_mention },
      allowlist: await this.allowlist(channel),
    };
  }

  /**
   * A stranger wrote: reuse their pending code, or issue one unless the channel already has three
   * pending (a flood of strangers must not fill the owner's approval list).
   */
  async requestPairing(channel: string, sender: { id: string; name?: string; chatId: string }): Promise<PairingOutcome> {
    return this.access.transaction(async (tx) => {
      await this.access.lockChannel(tx, channel);
      const mine = await this.access.findPendingCode(tx, channel, sender.id);
      if (mine) return { kind: 'code' as const, code: mine, isNew: false };
      if ((await this.access.countPending(tx, channel)) >= MAX_PENDING_PER_CHANNEL) return { kind: 'too_many_pending' as const };
      const code = channelPairingCode();
      await this.access.insertCode(tx, {
        channel,
        code,
        senderId: sender.id,
        senderName: sender.name ?? null,
        chatId: sender.chatId,
        expiresAt: new Date(Date.now() + CHANNEL_CODE_TTL_MS),
      });
      return { kind: 'code' as const, code, isNew: true };
    });
  }

  async pending(channel?: string): Promise<PairingRequest[]> {
    return (await this.access.listPending(channel)).map(toRequest);
  }

  /** The latest denied requests, newest first, each with who denied it. */
  async denied(channel?: string): Promise<PairingRequest[]> {
    return (await this.access.listDenied(channel, DENIED_LISTED)).map(toRequest);
  }

  /** Approves a pending code: the sender joins the persisted allowlist. */
  async approve(channel: string, code: string, approvedBy: string): Promise<PairingRequest> {
    const normalized = normalizeCode(code);
    return this.access.transaction(async (tx) => {
      const r = await this.access.approveCode(tx, channel, normalized);
      if (!r) throw new NestclawError('not_found', `No pending pairing code ${normalized} on ${channel} (wrong, expired or already used)`);
      await this.access.addPaired(tx, channel, r.sender_id, r.sender_name, approvedBy);
      return toRequest(r);
    });
  }

  /**
   * Turns a pending code down: the sender is not added, and the code no longer counts against the
   * channel's pending limit. Writing again later gets them a new code to be decided again. The row
   * keeps who denied it, as the allowlist keeps who approved.
   */
  async deny(channel: string, code: string, deniedBy: string): Promise<PairingRequest> {
    const normalized = normalizeCode(code);
    const r = await this.access.denyCode(channel, normalized, deniedBy);
    if (!r) throw new NestclawError('not_found', `No pending pairing code ${normalized} on ${channel} (wrong, expired or already used)`);
    return toRequest(r);
  }

  async revoke(channel: string, senderId: string): Promise<boolean> {
    return this.access.removePaired(channel, senderId);
  }
}
