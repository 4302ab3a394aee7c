import { Injectable } from '@nestjs/common';
import { ChannelConfig, ConfigService } from '@nestclaw/config';
import type { InboundMessage } from '../channel.port';
import { resolveAgent } from './bindings';
import { channelConfig } from '../channel-config';
import { buildSessionKey } from './session-key';

export interface Routed {
  agentId: string;
  sessionKey: string;
}

/** The second stage: which agent answers, and in which conversation (the session key). */
@Injectable()
export class MessageRouter {
  constructor(private readonly config: ConfigService) {}

  route(m: InboundMessage): Routed {
    const cfg = this.config.get();
    const peer = m.chat.type === 'dm' ? { kind: 'dm' as const, id: m.sender.id } : { kind: m.chat.type, id: m.chat.id };
    const { agentId } = resolveAgent(cfg.bindings, {
      channel: m.channel,
      accountId: m.accountId,
      peer,
      guildId: m.guildId,
      teamId: m.teamId,
    });
    const sessionKey = buildSessionKey({
      agentId,
      channel: m.channel,
      peerKind: peer.kind,
      peerId: peer.id,
      threadId: m.threadId,
      dmScope: cfg.session.dm_scope,
      identityLinks: cfg.session.identity_links,
    });
    return { agentId, sessionKey };
  }

  channelConfig(channel: string): ChannelConfig {
    return channelConfig(this.config.get(), channel);
  }

  commandPrefix(): string {
    return this.config.get().channels.command_prefix;
  }
}
