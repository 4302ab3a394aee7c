import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { BUILT_IN_CHANNELS, ConfigService, isBuiltInChannel, NestclawConfig } from '@nestclaw/config';
import { channelPairingCode, normalizeCode } from './pairing-code';
import { wrongPairingCode } from './security.errors';

export const CONFIRM_TTL_MS = 10 * 60_000;

export interface ChannelAccessSettings {
  allow_from: string[];
  approvers?: string[];
  group_policy: 'allowlist' | 'open' | 'disabled';
  require_mention: boolean;
}

/** The settings that decide who gets in and how often: they change only with the owner's confirmation. */
export interface SensitiveSettings {
  channels: Record<string, ChannelAccessSettings>;
  rate_limit: NestclawConfig['security']['rate_limit'];
}

export function pickSensitive(cfg: NestclawConfig): SensitiveSettings {
  const channels: Record<string, ChannelAccessSettings> = {};
  for (const id of BUILT_IN_CHANNELS) {
    const c = cfg.channels[id];
    channels[id] = { allow_from: c.allow_from, approvers: c.approvers, group_policy: c.group_policy, require_mention: c.require_mention };
  }
  // Plugin channels' sections are sensitive too: opening one to strangers needs the owner's code like any other.
  for (const [id, c] of Object.entries(cfg.channels.plugins)) channels[id] = { ...c };
  return { channels, rate_limit: cfg.security.rate_limit };
}

const sectionOf = (id: string) => (isBuiltInChannel(id) ? `channels.${id}` : `channels.plugins.${id}`);

function changedKeys(a: SensitiveSettings, b: SensitiveSettings): string[] {
  const out: string[] = [];
  for (const id of new Set([...Object.keys(a.channels), ...Object.keys(b.channels)])) {
    for (const k of ['allow_from', 'approvers', 'group_policy', 'require_mention'] as const)
      if (!isDeepStrictEqual(a.channels[id]?.[k], b.channels[id]?.[k])) out.push(`${sectionOf(id)}.${k}`);
  }
  if (!isDeepStrictEqual(a.rate_limit, b.rate_limit)) out.push('security.rate_limit');
  return out;
}

/**
 * Allowlists, approvers, group policy and rate limits as in force. A change to them in the config
 * file is not applied on its own (whoever can write that file must not be able to open the bot
 * to strangers): the gateway prints a fresh one-time code on its own terminal, and the owner
 * confirms it through the authenticated API (`POST /v1/config/security/confirm`).
 */
@Injectable()
export class SensitiveConfigService implements OnModuleInit {
  private readonly logger = new Logger('Security');
  private current!: SensitiveSettings;
  private pending?: { next: SensitiveSettings; code: string; expiresAt: number; changed: string[]; wrong: number };

  constructor(private readonly config: ConfigService) {}

  onModuleInit(): void {
    this.current = pickSensitive(this.config.get());
    // ConfigService watches and parses the file; this only decides what a new version means here.
    this.config.onFileChange((fromFile) => void this.consider(pickSensitive(fromFile)));
  }

  get(): SensitiveSettings {
    return this.current ?? pickSensitive(this.config.get());
  }

  channel(id: string): ChannelAccessSettings {
    const channels = this.get().channels;
    return (Object.hasOwn(channels, id) ? channels[id] : undefined) ?? { allow_from: [], group_policy: 'disabled', require_mention: true };
  }

  /** Re-reads the file now (through ConfigService); a sensitive change becomes pending, its code shown on the gateway's terminal. */
  async check(): Promise<{ changed: string[]; expiresAt: string } | null> {
    await this.config.reload();
    return this.pendingChange();
  }

  private consider(next: SensitiveSettings): { changed: string[]; expiresAt: string } | null {
    const changed = changedKeys(this.get(), next);
    if (changed.length === 0) {
      this.pending = undefined;
      return null;
    }
    const code = channelPairingCode();
    this.pending = { next, code, expiresAt: Date.now() + CONFIRM_TTL_MS, changed, wrong: 0 };
    // Straight to stdout, never through the logger (logs may be shipped elsewhere): only the owner at this terminal sees it.
    process.stdout.write(
      `\nnestclaw: security-sensitive settings changed in ${this.config.path} (${changed.join(', ')}).\n` +
        `They are NOT applied until confirmed within 10 minutes with code ${code}:\n` +
        `  POST /v1/config/security/confirm {"code": "${code}"}\n\n`,
    );
    this.logger.warn(`security-sensitive settings changed (${changed.join(', ')}); waiting for confirmation`);
    return { changed, expiresAt: new Date(this.pending.expiresAt).toISOString() };
  }

  pendingChange(): { changed: string[]; expiresAt: string } | null {
    if (!this.pending || this.pending.expiresAt < Date.now()) return null;
    return { changed: this.pending.changed, expiresAt: new Date(this.pending.expiresAt).toISOString() };
  }

  confirm(code: string): string[] {
    const p = this.pending;
    if (!p || p.expiresAt < Date.now()) throw wrongPairingCode();
    if (normalizeCode(code) !== p.code) {
      // Five wrong guesses void the pending change; the owner re-checks to get a new code.
      if (++p.wrong >= 5) this.pending = undefined;
      throw wrongPairingCode();
    }
    this.current = p.next;
    this.pending = undefined;
    this.logger.log(`applied confirmed security settings: ${p.changed.join(', ')}`);
    return p.changed;
  }
}
