import { Injectable, Logger } from '@nestjs/common';
import { ExternalTurns } from '@nestclaw/agent';
import { CliBridge, CliCaller } from '@nestclaw/cli-bridge';
import { ConfigService } from '@nestclaw/config';
import { AccessPolicy } from '../access/access-policy';
import type { InboundMessage } from '../channel.port';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import type { Routed } from '../routing/message-router';
import { ChannelSessionRepository } from '../session/channel-session.repository';
import { ChannelTurn, TurnEvents, TurnOutcome } from './channel-turn';

/**
 * The turn stage for a chat bound to a coding CLI (and for `/cli`, `/keys`): the message goes to the
 * CLI bridge as typed instead of to an agent, its questions come back as approval events (the
 * delivery stage shows their cards as it does for a tool call), what it is doing as progress events
 * (the preview's text) and its answer as the reply (a very long one as a file). A message and its
 * answer are a turn in the chat's session (transcript and conversation log, ExternalTurns); `/cli`
 * and `/keys` are logged like other commands. The bridge writes the audit rows.
 */
@Injectable()
export class CliTurnRunner {
  private readonly logger = new Logger('Channels');

  constructor(
    private readonly bridge: CliBridge,
    private readonly access: AccessPolicy,
    private readonly config: ConfigService,
    private readonly sessions: ChannelSessionRepository,
    private readonly turns: ExternalTurns,
    private readonly log: ConversationLogService,
  ) {}

  start(inboundId: string, m: InboundMessage, routed: Routed, recovered: boolean): ChannelTurn {
    const events = new TurnEvents();
    const outcome = this.run(events, inboundId, m, routed, recovered).finally(() => events.end());
    return { events, outcome };
  }

  private async run(events: TurnEvents, inboundId: string, m: InboundMessage, routed: Routed, recovered: boolean): Promise<TurnOutcome> {
    const sessionId = await this.sessions.current(routed.sessionKey);
    const caller: CliCaller = { channel: m.channel, senderId: m.sender.id, sessionKey: routed.sessionKey, isOwner: this.isOwner(m) };
    const entry = { channel: m.channel, endpointId: m.sender.id, sessionId };
    const cmd = routed.command;
    if (cmd && (cmd.name === 'cli' || cmd.name === 'keys')) {
      await this.log.append({ ...entry, direction: 'in', content: m.text });
      const text = await this.bridge.command(cmd.name, cmd.args, caller, cmd.prefix).catch((e: Error) => this.failed(routed, e));
      await this.log.append({ ...entry, direction: 'out', content: text });
      return { kind: 'reply', text, status: 'answered' };
    }
    // After a restart the message keeps its turn: an answer stored before the crash is only delivered,
    // and the bridge reads the answer of a message already typed rather than typing it again.
    const inboundKey = `${m.channel}:${inboundId}`;
    const linked = recovered ? await this.turns.linked(inboundKey) : null;
    if (linked?.reply) return { kind: 'reply', text: linked.reply, status: 'answered', longAs: 'file' };
    const turnId = linked?.turnId ?? (await this.turns.open({ ...entry, agentId: routed.agentId, content: m.text, inboundKey }));
    if (!turnId) await this.log.append({ ...entry, direction: 'in', content: m.text });
    let ok = true;
    const text = await this.bridge
      .send({
        caller,
        text: m.text,
        sessionId,
        turnId,
        inboundKey,
        recovered,
        onApproval: (a) =>
          events.push({
            type: 'approval_required',
            approvalId: a.id,
            tool: a.tool,
            input: a.input,
            shapesEveryConversation: false,
            reason: null,
            ownerOnly: false,
          }),
        onProgress: (progress) => events.push({ type: 'progress', text: progress }),
      })
      .catch((e: Error) => ((ok = false), this.failed(routed, e)));
    if (turnId) await this.turns.close(linked?.sessionId ?? sessionId, turnId, text, ok, m.channel, m.sender.id);
    else await this.log.append({ ...entry, direction: 'out', content: text });
    return { kind: 'reply', text, status: ok ? 'answered' : 'failed', longAs: 'file' };
  }

  private failed(routed: Routed, e: Error): string {
    this.logger.warn(`CLI message for ${routed.sessionKey} failed: ${e.message}`);
    return `Sorry, the CLI bridge could not do that (${e.message}).`;
  }

  /** The owner (linked as `owner` in session.identity_links) or a configured approver: being paired is not enough. */
  private isOwner(m: InboundMessage): boolean {
    const owner = this.config.get().session.identity_links.owner ?? [];
    return owner.includes(`${m.channel}:${m.sender.id}`) || this.access.isApprover(m);
  }
}
