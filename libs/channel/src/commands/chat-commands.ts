import { Injectable } from '@nestjs/common';
import { AgentService } from '@nestclaw/agent';
import { ConfigService } from '@nestclaw/config';
import type { ChannelAdapter, InboundMessage } from '../channel.port';
import { ConversationLogService } from '../conversation-log/conversation-log.service';
import { InboundRepository } from '../inbound/inbound.repository';
import type { Routed } from '../routing/message-router';
import { RunningTurns } from '../turn/running-turns';
import { ApprovalCommands } from './approval-commands';
import { CronCommands } from './cron-commands';
import { MemoryCommands } from './memory-commands';

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
    private readonly inbound: InboundRepository,
    private readonly log: ConversationLogService,
    private readonly running: RunningTurns,
    private readonly agent: AgentService,
    private readonly approvals: ApprovalCommands,
    private readonly memory: MemoryCommands,
    private readonly cron: CronCommands,
  ) {}

  async run(m: InboundMessage, routed: Routed, cmd: ParsedCommand): Promise<string> {
    const sessionId = await this.inbound.currentSession(routed.sessionKey);
    await this.log.append({ direction: 'in', channel: m.channel, endpointId: m.sender.id, sessionId, content: m.text });
    switch (cmd.name) {
      case 'help':
        return HELP(this.config.get().channels.command_prefix);
      case 'whoami':
        return `${m.channel} user id ${m.sender.id}${m.sender.username ? ` (@${m.sender.username})` : ''}\nchat ${m.chat.id} (${m.chat.type})\nagent ${routed.agentId}, session ${sessionId}`;
      case 'new': {
        await this.agent.endSession(sessionId, routed.agentId);
        const next = await this.inbound.startNewSession(routed.sessionKey);
        return `Started a fresh conversation (session ${next}).`;
      }
      case 'stop':
        return this.running.cancel(routed.sessionKey) ? 'Stopping the current answer.' : 'Nothing is running.';
      case 'status':
        return this.status(routed.agentId, sessionId, this.running.isRunning(routed.sessionKey));
      case 'approve':
      case 'deny':
        return this.approvals.decide(m, cmd.args[0], cmd.name);
      case 'remember':
      case 'forget':
        return this.memory.run(m, routed.agentId, cmd.name, cmd.args, this.config.get().channels.command_prefix);
      case 'cron':
        return this.cron.run(m, routed, this.config.get().channels.command_prefix);
      case 'compact': {
        const r = await this.agent.compact(sessionId).catch((e: Error) => e);
        if (r instanceof Error) return `Could not compact: ${r.message}`;
        if (!r.summarisedMessages && !r.mergedSummaries) return 'Nothing to compact yet.';
        return `Compacted: ${r.summarisedMessages} older message(s) summarised${r.mergedSummaries ? `, ${r.mergedSummaries} summaries merged` : ''}.`;
      }
    }
  }

  /** A button press (approval cards are the only buttons we send). */
  press(adapter: ChannelAdapter, m: InboundMessage): Promise<void> {
    return this.approvals.callback(adapter, m);
  }

  private async status(agentId: string, sessionId: string, running: boolean): Promise<string> {
    const cfg = this.config.get();
    const model = cfg.agents[agentId]?.model ?? cfg.providers.primary ?? Object.keys(cfg.models)[0] ?? '(none)';
    const s = await this.inbound.sessionUsage(sessionId);
    return [
      `model: ${model}`,
      `agent: ${agentId}`,
      `session: ${sessionId}${running ? ' (answering now)' : ''}`,
      s ? `tokens: ${s.inputTokens} in / ${s.outputTokens} out` : 'tokens: 0 (no messages yet)',
      s ? `cost: $${s.costUsd.toFixed(4)}` : 'cost: $0',
    ].join('\n');
  }
}
