import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { ChannelAccessService, RateLimiter, SensitiveConfigService } from '@nestclaw/security';
import type { InboundMessage } from '../channel.port';
import { channelConfig } from '../channel-config';
import { ConversationLogService } from '../conversation-log/conversation-log.service';

export type Access =
  | { kind: 'allow' }
  | { kind: 'ignore' }
  | { kind: 'stranger' }
  | { kind: 'refuse'; why: string }
  /** An allowed sender, but content we cannot take (a file over the limit, media without text). */
  | { kind: 'unreadable'; reply: string }
  | { kind: 'rate_limited'; retryAfterMs: number; notify: boolean };

/**
 * The first stage: may this sender reach the agent? Allowlists, group policy, mentions and rate
 * limits as confirmed by the owner (SensitiveConfigService, not straight from the file). Also says
 * what a refused sender is told, and who may decide tool approvals.
 */
@Injectable()
export class AccessPolicy {
  private readonly limiter = new RateLimiter();

  constructor(
    private readonly access: ChannelAccessService,
    private readonly settings: SensitiveConfigService,
    private readonly config: ConfigService,
    private readonly log: ConversationLogService,
  ) {}

  async decide(m: InboundMessage): Promise<Access> {
    const cfg = this.settings.channel(m.channel);
    if (m.chat.type !== 'dm') {
      if (cfg.group_policy === 'disabled') return { kind: 'ignore' };
      if (cfg.require_mention && !m.mentioned) return { kind: 'ignore' };
      if (cfg.group_policy === 'allowlist' && !(await this.access.isAllowed(m.channel, m.sender.id)))
        return { kind: 'refuse', why: 'group sender not on the allowlist' };
    } else if (!(await this.access.isAllowed(m.channel, m.sender.id))) {
      // A stranger flooding the bot is dropped unlogged past the limit: each refusal costs a write.
      const { limit, window } = this.settings.get().rate_limit.per_sender;
      return this.limiter.hit(`${m.channel}:${m.sender.id}`, limit, window) > 0 ? { kind: 'ignore' } : { kind: 'stranger' };
    }
    const { limit, window } = this.settings.get().rate_limit.per_sender;
    const { retryAfterMs, firstRefusal } = this.limiter.check(`${m.channel}:${m.sender.id}`, limit, window);
    if (retryAfterMs > 0) return { kind: 'rate_limited', retryAfterMs, notify: firstRefusal };
    return this.content(m) ?? { kind: 'allow' };
  }

  private content(m: InboundMessage): Access | undefined {
    const cfg = channelConfig(this.config.get(), m.channel);
    const tooBig = m.media.find((x) => (x.sizeBytes ?? 0) > cfg.max_file_bytes);
    if (!tooBig && (m.text.trim() || !m.media.length)) return undefined;
    const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
    const reply = tooBig
      ? `That file is too large (${mb(tooBig.sizeBytes ?? 0)}; the limit is ${mb(cfg.max_file_bytes)}). Please send something smaller or paste the text.`
      : `I can't read ${m.media[0].kind} messages yet; please send text.`;
    return { kind: 'unreadable', reply };
  }

  /** Logs a refused message and says what its sender is told (a pairing code, a polite wait), if anything. */
  async refusalReply(m: InboundMessage, access: Access): Promise<{ text: string; kind: 'pairing' | 'notice' } | undefined> {
    const content = m.text || (m.media.length ? `[${m.media[0].kind}]` : '');
    await this.log.append({ direction: 'refused', channel: m.channel, endpointId: m.sender.id, content });
    if (access.kind === 'unreadable') return { kind: 'notice', text: access.reply };
    if (access.kind === 'stranger') {
      const outcome = await this.access.requestPairing(m.channel, {
        id: m.sender.id,
        name: m.sender.username ?? m.sender.name,
        chatId: m.chat.id,
      });
      if (outcome.kind !== 'code' || !outcome.isNew) return undefined;
      return {
        kind: 'pairing',
        text:
          `I only talk to people my owner has approved.\n\nYour pairing code: ${outcome.code} (valid for 1 hour)\n\n` +
          `Ask the owner to run: nestclaw pairing approve ${m.channel} ${outcome.code}`,
      };
    }
    if (access.kind === 'rate_limited' && access.notify) {
      const wait = Math.ceil(access.retryAfterMs / 1000);
      return { kind: 'notice', text: `You're sending messages faster than I can answer. Please wait ${wait} s and try again.` };
    }
    return undefined;
  }

  /**
   * Approvers are `approvers` in config, else the configured `allow_from`: being paired lets someone
   * chat, not approve shell commands on the owner's machine.
   */
  isApprover(m: InboundMessage): boolean {
    const cfg = this.settings.channel(m.channel);
    return (cfg.approvers ?? cfg.allow_from).includes(m.sender.id);
  }
}
