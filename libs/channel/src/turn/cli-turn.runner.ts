import { Injectable, Logger } from '@nestjs/common';
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
 * delivery stage shows their cards as it does for a tool call) and its answer as the reply. Both
 * sides are written to the conversation log; the bridge writes the audit rows.
 */
@Injectable()
export class CliTurnRunner {
  private readonly logger = new Logger('Channels');

  constructor(
    private readonly bridge: CliBridge,
    private readonly access: AccessPolicy,
    private readonly config: ConfigService,
    private readonly sessions: ChannelSessionRepository,
    private readonly log: ConversationLogService,
  ) {}

  start(m: InboundMessage, routed: Routed): ChannelTurn {
    const events = new TurnEvents();
    const outcome = this.run(events, m, routed).finally(() => events.end());
    return { events, outcome };
  }

  private async run(events: TurnEvents, m: InboundMessage, routed: Routed): Promise<TurnOutcome> {
    const sessionId = await this.sessions.current(routed.sessionKey);
    const entry = { channel: m.channel, endpointId: m.sender.id, sessionId };
    await this.log.append({ ...entry, direction: 'in', content: m.text });
    const caller: CliCaller = { channel: m.channel, senderId: m.sender.id, sessionKey: routed.sessionKey, isOwner: this.isOwner(m) };
    try {
      const cmd = routed.command;
      const text =
        cmd && (cmd.name === 'cli' || cmd.name === 'keys')
          ? await this.bridge.command(cmd.name, cmd.args, caller, cmd.prefix)
          : await this.bridge.send({
              caller,
              text: m.text,
              sessionId,
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
            });
      await this.log.append({ ...entry, direction: 'out', content: text });
      return { kind: 'reply', text, status: 'answered' };
    } catch (e) {
      this.logger.warn(`CLI message for ${routed.sessionKey} failed: ${(e as Error).message}`);
      return { kind: 'reply', text: `Sorry, the CLI bridge could not do that (${(e as Error).message}).`, status: 'failed' };
    }
  }

  /** The owner (linked as `owner` in session.identity_links) or a configured approver: being paired is not enough. */
  private isOwner(m: InboundMessage): boolean {
    const owner = this.config.get().session.identity_links.owner ?? [];
    return owner.includes(`${m.channel}:${m.sender.id}`) || this.access.isApprover(m);
  }
}
