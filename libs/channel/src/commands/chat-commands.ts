import { Injectable } from '@nestjs/common';
import type { ChannelAdapter, InboundMessage } from '../channel.port';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import type { ParsedCommand } from '../routing/command-parser';
import type { Routed } from '../routing/message-router';
import { ChannelSessionRepository } from '../session/channel-session.repository';
import { ApprovalCommands } from './approval-commands';
import { CronCommands } from './cron-commands';
import { MemoryCommands } from './memory-commands';
import { SessionCommands } from './session-commands';

const HELP = (p: string) =>
  [
    `${p}new — start a fresh conversation`,
    `${p}stop — cancel the answer being written`,
    `${p}compact — summarise older messages now (keeps the recent ones word for word)`,
    `${p}status — model, session, tokens and cost so far`,
    `${p}whoami — your id as this bot sees it`,
    `${p}approve <id> / ${p}deny <id> — decide a pending tool approval`,
    `${p}remember <text> / ${p}forget <id> — keep or drop a long-term memory`,
    `${p}cron — your scheduled jobs (${p}cron add in 10m <message>, ${p}cron rm <id>)`,
    `${p}cli list | use <name> [dir] | status | stop | restart | exit — drive a coding CLI from this chat`,
    `${p}keys esc|tab|enter|ctrl-c|up|down|1-9 … — send keys to the bound CLI`,
    `${p}help — this list`,
  ].join('\n');

/** Chat commands: the reply text for each (the delivery stage sends it). The agent never sees them, so they are logged here. */
@Injectable()
export class ChatCommands {
  constructor(
    private readonly log: ConversationLogService,
    private readonly pointers: ChannelSessionRepository,
    private readonly sessions: SessionCommands,
    private readonly approvals: ApprovalCommands,
    private readonly memory: MemoryCommands,
    private readonly cron: CronCommands,
  ) {}

  /** The reply to a routed command; the chat's current session is resolved here once and handed to the command. */
  async run(m: InboundMessage, routed: Routed & { command: ParsedCommand }): Promise<string> {
    const cmd = routed.command;
    const sessionId = await this.pointers.current(routed.sessionKey);
    await this.log.append({ direction: 'in', channel: m.channel, endpointId: m.sender.id, sessionId, content: m.text });
    switch (cmd.name) {
      case 'help':
        return HELP(cmd.prefix);
      case 'whoami':
        return `${m.channel} user id ${m.sender.id}${m.sender.username ? ` (@${m.sender.username})` : ''}\nchat ${m.chat.id} (${m.chat.type})\nagent ${routed.agentId}, session ${sessionId}`;
      case 'new':
        return this.sessions.startNew(routed, sessionId);
      case 'stop':
        return this.sessions.stop(routed, sessionId);
      case 'status':
        return this.sessions.status(routed, sessionId);
      case 'approve':
      case 'deny':
        return this.approvals.decide(m, cmd.args[0], cmd.name);
      case 'remember':
      case 'forget':
        return this.memory.run(m, routed.agentId, cmd.name, cmd.args, cmd.prefix);
      case 'cron':
        return this.cron.run(m, routed, sessionId, cmd.prefix);
      case 'compact':
        return this.sessions.compact(sessionId);
      case 'cli':
      case 'keys':
        // Routing hands these to the CLI bridge (CliTurnRunner); they never reach this stage.
        return `${cmd.prefix}${cmd.name} is answered by the CLI bridge.`;
    }
  }

  /** A button press (approval cards are the only buttons we send). */
  press(adapter: ChannelAdapter, m: InboundMessage): Promise<void> {
    return this.approvals.callback(adapter, m);
  }
}
