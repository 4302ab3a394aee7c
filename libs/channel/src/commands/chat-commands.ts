import { ConfigService } from '@nestclaw/config';
import type { SensitiveConfigService } from '@nestclaw/security';
import type { ApprovalDecider, ChannelAdapter, InboundMessage } from '../channel.port';
import type { ConversationLogService } from '../conversation-log/conversation-log.service';
import type { InboundRepository } from '../inbound/inbound.repository';
import { renderFor, plainFallback, replyParts } from '../outbound/reply-delivery';
import { MemoryCommandDeps, runMemoryCommand } from './memory-commands';

export const COMMANDS = ['new', 'stop', 'status', 'whoami', 'help', 'approve', 'deny', 'remember', 'forget'] as const;
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

const HELP = (p: string) =>
  [
    `${p}new — start a fresh conversation`,
    `${p}stop — cancel the answer being written`,
    `${p}status — model, session, tokens and cost so far`,
    `${p}whoami — your id as this bot sees it`,
    `${p}approve <id> / ${p}deny <id> — decide a pending tool approval`,
    `${p}remember <text> / ${p}forget <id> — keep or drop a long-term memory`,
    `${p}help — this list`,
  ].join('\n');

interface Deps {
  config: ConfigService;
  inbound: InboundRepository;
  log: ConversationLogService;
  settings: SensitiveConfigService;
  approvals?: ApprovalDecider;
  memory?: MemoryCommandDeps;
}

interface Runs {
  cancel(sessionKey: string): boolean;
  isRunning(sessionKey: string): boolean;
  /** Fires SessionEnd for a conversation the user just closed with /new. */
  ended(sessionId: string, agentId: string): Promise<void>;
}

/** Chat commands and approval buttons. Replies here are logged by us: the agent never sees them. */
export class ChatCommands {
  constructor(
    private readonly d: Deps,
    private readonly runs: Runs,
  ) {}

  isImmediate(name: CommandName): boolean {
    return name !== 'new';
  }

  async reply(
    adapter: ChannelAdapter,
    m: InboundMessage,
    inboundId: string | undefined,
    text: string,
    kind: 'notice' | 'pairing' | 'command' | 'approval',
    buttons?: { text: string; data: string }[][],
  ): Promise<string | undefined> {
    let first: string | undefined;
    for (const [i, part] of replyParts(adapter, text).entries()) {
      const sent = await adapter.send({
        chatId: m.chat.id,
        threadId: m.threadId,
        text: part.rendered,
        plain: plainFallback(adapter, part.rendered, part.markdown),
        buttons: i === 0 ? buttons : undefined,
      });
      first ??= sent.platformMessageId;
      await this.d.inbound.recordOutbound({
        channel: m.channel,
        chatId: m.chat.id,
        inboundId,
        part: i,
        kind,
        platformMessageId: sent.platformMessageId,
        content: part.markdown,
      });
    }
    await this.d.log.append({ direction: 'out', channel: m.channel, endpointId: m.sender.id, content: text });
    return first;
  }

  async run(
    adapter: ChannelAdapter,
    m: InboundMessage,
    inboundId: string,
    routed: { agentId: string; sessionKey: string },
    cmd: ParsedCommand,
  ): Promise<void> {
    const sessionId = await this.d.inbound.currentSession(routed.sessionKey);
    await this.d.log.append({ direction: 'in', channel: m.channel, endpointId: m.sender.id, sessionId, content: m.text });
    const p = this.d.config.get().channels.command_prefix;
    let text: string;
    switch (cmd.name) {
      case 'help':
        text = HELP(p);
        break;
      case 'whoami':
        text = `${m.channel} user id ${m.sender.id}${m.sender.username ? ` (@${m.sender.username})` : ''}\nchat ${m.chat.id} (${m.chat.type})\nagent ${routed.agentId}, session ${sessionId}`;
        break;
      case 'new': {
        await this.runs.ended(sessionId, routed.agentId);
        const next = await this.d.inbound.startNewSession(routed.sessionKey);
        text = `Started a fresh conversation (session ${next}).`;
        break;
      }
      case 'stop':
        text = this.runs.cancel(routed.sessionKey) ? 'Stopping the current answer.' : 'Nothing is running.';
        break;
      case 'status':
        text = await this.status(routed.agentId, sessionId, this.runs.isRunning(routed.sessionKey));
        break;
      case 'approve':
      case 'deny':
        text = await this.decide(m, cmd.args[0], cmd.name);
        break;
      case 'remember':
      case 'forget':
        text = await runMemoryCommand(this.d.memory, m, routed.agentId, cmd.name, cmd.args, p);
        break;
    }
    await this.reply(adapter, m, inboundId, text, 'command');
  }

  private async status(agentId: string, sessionId: string, running: boolean): Promise<string> {
    const cfg = this.d.config.get();
    const model = cfg.agents[agentId]?.model ?? cfg.providers.primary ?? Object.keys(cfg.models)[0] ?? '(none)';
    const s = await this.d.inbound.sessionUsage(sessionId);
    return [
      `model: ${model}`,
      `agent: ${agentId}`,
      `session: ${sessionId}${running ? ' (answering now)' : ''}`,
      s ? `tokens: ${s.inputTokens} in / ${s.outputTokens} out` : 'tokens: 0 (no messages yet)',
      s ? `cost: $${s.costUsd.toFixed(4)}` : 'cost: $0',
    ].join('\n');
  }

  /**
   * Approvers are `approvers` in config, else the configured `allow_from`: being paired lets someone
   * chat, not approve shell commands on the owner's machine.
   */
  private async isApprover(m: InboundMessage): Promise<boolean> {
    const cfg = this.d.settings.channel(m.channel);
    return (cfg.approvers ?? cfg.allow_from).includes(m.sender.id);
  }

  private async decide(m: InboundMessage, id: string | undefined, decision: 'approve' | 'deny'): Promise<string> {
    if (!id) return `Usage: ${this.d.config.get().channels.command_prefix}${decision} <id>`;
    if (!(await this.isApprover(m))) return 'You are not allowed to decide approvals.';
    if (!this.d.approvals) return 'Approvals are not available in this gateway.';
    const r = await this.d.approvals.decide(id, decision, `${m.channel}:${m.sender.id}`);
    return r.message ?? (r.ok ? `${decision === 'approve' ? 'Approved' : 'Denied'} ${id}.` : `Could not ${decision} ${id}.`);
  }

  /** A button press: `ap:<id>:a|d`. */
  async callback(adapter: ChannelAdapter, m: InboundMessage): Promise<void> {
    const match = /^ap:(.+):([ad])$/.exec(m.callback?.data ?? '');
    if (!match) {
      await adapter.answerCallback?.(m.callback!.id);
      return;
    }
    const decision = match[2] === 'a' ? 'approve' : 'deny';
    if (!(await this.isApprover(m))) {
      await this.d.log.append({
        direction: 'refused',
        channel: m.channel,
        endpointId: m.sender.id,
        content: `[button ${decision} ${match[1]}]`,
      });
      await adapter.answerCallback?.(m.callback!.id, 'You are not allowed to decide approvals.');
      return;
    }
    const text = await this.decide(m, match[1], decision);
    await this.d.log.append({ direction: 'in', channel: m.channel, endpointId: m.sender.id, content: `[button ${decision} ${match[1]}]` });
    await adapter.answerCallback?.(m.callback!.id, text.slice(0, 190));
    if (m.callback?.messageId && adapter.edit) {
      const render = renderFor(adapter);
      await adapter.edit(m.chat.id, m.callback.messageId, render(text), text).catch(() => undefined);
    }
  }

  /** Shows a pending approval with Approve / Deny buttons. */
  async askApproval(adapter: ChannelAdapter, m: InboundMessage, req: { id: string; name?: string; input?: unknown }): Promise<void> {
    const p = this.d.config.get().channels.command_prefix;
    const input = req.input === undefined ? '' : `\n\n\`\`\`\n${JSON.stringify(req.input, null, 2).slice(0, 1500)}\n\`\`\``;
    const text = `Approval needed: **${req.name ?? 'tool call'}**${input}\n\nOr reply ${p}approve ${req.id} / ${p}deny ${req.id}`;
    const buttons = adapter.capabilities.buttons
      ? [
          [
            { text: 'Approve', data: `ap:${req.id}:a` },
            { text: 'Deny', data: `ap:${req.id}:d` },
          ],
        ]
      : undefined;
    await this.reply(adapter, m, undefined, text, 'approval', buttons).catch(() => undefined);
  }
}
