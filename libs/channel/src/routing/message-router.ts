import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import type { InboundMessage } from '../channel.port';
import { resolveAgent } from './bindings';
import { ParsedCommand, parseCommand } from './command-parser';
import { buildSessionKey } from './session-key';

export interface Routed {
  agentId: string;
  sessionKey: string;
  /** A chat command (answered by the commands stage), or undefined: a turn for the agent. */
  command?: ParsedCommand;
}

/** The second stage: which agent answers, in which conversation (the session key), and whether as a command or a turn. */
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
    return { agentId, sessionKey, command: parseCommand(m.text, cfg.channels.command_prefix) };
  }
}
