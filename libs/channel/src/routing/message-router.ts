import { Injectable } from '@nestjs/common';
import { CliBridge } from '@nestclaw/cli-bridge';
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
  /**
   * Set when the CLI bridge answers: `/cli` or `/keys`, or any non-command message of a chat bound to
   * a CLI (`busy`: that CLI is still on an earlier message, so this one is told it waits).
   */
  cli?: { name?: string; busy: boolean };
}

/**
 * The second stage: which agent answers, in which conversation (the session key), and whether as a
 * command or a turn — or the CLI bridge, for a chat bound to a CLI (an in-memory lookup, no statement).
 */
@Injectable()
export class MessageRouter {
  constructor(
    private readonly config: ConfigService,
    private readonly bridge: CliBridge,
  ) {}

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
    const command = parseCommand(m.text, cfg.channels.command_prefix);
    if (command?.name === 'cli' || command?.name === 'keys') return { agentId, sessionKey, command, cli: { busy: false } };
    const bound = command ? undefined : this.bridge.boundCli(sessionKey);
    return { agentId, sessionKey, command, cli: bound && { name: bound.cli, busy: bound.busy } };
  }
}
