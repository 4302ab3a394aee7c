import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import type { ChannelAdapter, InboundMessage } from '../channel.port';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import type { Routed } from '../routing/message-router';
import { ApprovalCommands } from './approval-commands';
import { CronCommands } from './cron-commands';
import { MemoryCommands } from './memory-commands';
import { SessionCommands } from './session-commands';

export const COMMANDS = ['new', 'stop', 'status', 'whoami', 'help', 'approve', 'deny', 'compact', 'remember', 'forget', 'cron'] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface ParsedCommand {
  name: CommandName;
  args: string[];
}

/** `/status`, `/status@MyBot`, `/approve abc`; unknown commands are ordinary text for the model. */
export function parseCommand(text: string, prefix: string): ParsedCommand | undefined {
  const t = text.trim();
  if (!t.startsWith(prefix)) return undefined;
  const [head, ...args] = t.slice(prefix.length).split(/\s+/);
  const name = head.replace(/@\S+$/, '').toLowerCase();
  return (COMMANDS as readonly string[]).includes(name) ? { name: name as CommandName, args } : undefined;
}

/** Every command but `/new` and `/compact` answers at once: `/stop` must not wait behind the run it stops. */
export const isImmediate = (c: ParsedCommand) => c.name !== 'new' && c.name !== 'compact';

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
    `${p}help — this list`,
  ].join('\n');

/** Chat commands: the reply text for each (the delivery stage sends it). The agent never sees them, so they are logged here. */
@Injectable()
export class ChatCommands {
  constructor(
    private readonly config: ConfigService,
    private readonly log: ConversationLogService,
    private readonly sessions: SessionCommands,
    private readonly approvals: ApprovalCommands,
    private readonly memory: MemoryCommands,
    private readonly cron: CronCommands,
  ) {}

  async run(m: InboundMessage, routed: Routed, cmd: ParsedCommand): Promise<string> {
    const sessionId = await this.sessions.current(routed);
    await this.log.append({ direction: 'in', channel: m.channel, endpointId: m.sender.id, sessionId, content: m.text });
    switch (cmd.name) {
      case 'help':
        return HELP(this.config.get().channels.command_prefix);
      case 'whoami':
        return `${m.channel} user id ${m.sender.id}${m.sender.username ? ` (@${m.sender.username})` : ''}\nchat ${m.chat.id} (${m.chat.type})\nagent ${routed.agentId}, session ${sessionId}`;
      case 'new':
        return this.sessions.startNew(routed, sessionId);
      case 'stop':
        return this.sessions.stop(routed);
      case 'status':
        return this.sessions.status(routed, sessionId);
      case 'approve':
      case 'deny':
        return this.approvals.decide(m, cmd.args[0], cmd.name);
      case 'remember':
      case 'forget':
        return this.memory.run(m, routed.agentId, cmd.name, cmd.args, this.config.get().channels.command_prefix);
      case 'cron':
        return this.cron.run(m, routed, this.config.get().channels.command_prefix);
      case 'compact':
        return this.sessions.compact(sessionId);
    }
  }

  /** A button press (approval cards are the only buttons we send). */
  press(adapter: ChannelAdapter, m: InboundMessage): Promise<void> {
    return this.approvals.callback(adapter, m);
  }
}
