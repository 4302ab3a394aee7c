import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { KeyedQueue, isNestclawError } from '@nestclaw/common';
import { AgentService } from '@nestclaw/agent';
import { ChannelConfig, ConfigService } from '@nestclaw/config';
import { MemoryStore, TurnMemory } from '@nestclaw/memory';
import { ChannelAccessService, RateLimiter, SensitiveConfigService } from '@nestclaw/security';
import { APPROVAL_DECIDER, ApprovalDecider, ChannelAdapter, InboundMessage } from './channel.port';
import { ChatCommands, parseCommand } from './commands/chat-commands';
import { ConversationLogService } from './conversation-log/conversation-log.service';
import { InboundRepository } from './inbound/inbound.repository';
import { deliverReply, StreamPreview } from './outbound/reply-delivery';
import { resolveAgent } from './routing/bindings';
import { buildSessionKey } from './routing/session-key';

type Access =
  | { kind: 'allow' }
  | { kind: 'ignore' }
  | { kind: 'stranger' }
  | { kind: 'refuse'; why: string }
  | { kind: 'rate_limited'; retryAfterMs: number; notify: boolean };

export interface Routed {
  agentId: string;
  sessionKey: string;
}

/**
 * Everything between an adapter and the agent: access control, durable inbound storage (before the
 * adapter acknowledges), per-session ordering, commands, streaming previews, splitting and sending,
 * and answering what a crash left unanswered.
 */
@Injectable()
export class ChannelDispatcher {
  private readonly logger = new Logger('Channels');
  private readonly queue = new KeyedQueue();
  private readonly limiter = new RateLimiter();
  private readonly running = new Map<string, AbortController>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly commands: ChatCommands;
  private readonly deps: { approvals?: ApprovalDecider };
  private stopping = false;

  constructor(
    private readonly config: ConfigService,
    private readonly agent: AgentService,
    private readonly inbound: InboundRepository,
    private readonly log: ConversationLogService,
    private readonly access: ChannelAccessService,
    private readonly settings: SensitiveConfigService,
    @Optional() @Inject(APPROVAL_DECIDER) approvals?: ApprovalDecider,
    @Optional() memoryStore?: MemoryStore,
    @Optional() turnMemory?: TurnMemory,
  ) {
    this.deps = { approvals };
    const memory = memoryStore && turnMemory ? { store: memoryStore, turns: turnMemory } : undefined;
    this.commands = new ChatCommands(Object.assign(this.deps, { config, inbound, log, settings, memory }), {
      cancel: (key) => {
        const c = this.running.get(key);
        c?.abort();
        return !!c;
      },
      isRunning: (key) => this.running.has(key),
      ended: (sessionId, agentId) => this.agent.endSession(sessionId, agentId),
    });
  }

  /** Wires the tool layer's approval service when it is not provided under APPROVAL_DECIDER. */
  setApprovalDecider(decider: ApprovalDecider): void {
    this.deps.approvals = decider;
  }

  /**
   * Shows a pending approval in a chat with Approve / Deny buttons. The agent's `approval_required`
   * event calls this for the chat the run came from; other sources (e.g. approvals raised outside a
   * channel run) may call it directly.
   */
  async askApproval(adapter: ChannelAdapter, chatId: string, req: { id: string; name?: string; input?: unknown }): Promise<void> {
    const m: InboundMessage = {
      channel: adapter.id,
      platformMessageId: `approval:${req.id}`,
      chat: { id: chatId, type: 'dm' },
      sender: { id: chatId },
      mentioned: true,
      text: '',
      media: [],
      raw: {},
      timestamp: new Date().toISOString(),
    };
    await this.commands.askApproval(adapter, m, req);
  }

  channelConfig(channel: string): ChannelConfig {
    return (this.config.get().channels as unknown as Record<string, ChannelConfig>)[channel];
  }

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

  private async decide(m: InboundMessage): Promise<Access> {
    // Allowlists, policies and limits as confirmed by the owner (not straight from the file).
    const cfg = this.settings.channel(m.channel);
    if (m.chat.type !== 'dm') {
      if (cfg.group_policy === 'disabled') return { kind: 'ignore' };
      if (cfg.require_mention && !m.mentioned) return { kind: 'ignore' };
      if (cfg.group_policy === 'allowlist' && !(await this.access.isAllowed(m.channel, m.sender.id)))
        return { kind: 'refuse', why: 'group sender not on the allowlist' };
    } else if (!(await this.access.isAllowed(m.channel, m.sender.id))) {
      // A stranger flooding the bot is dropped unlogged past the limit: each refusal costs a write.
      const { limit, window } = this.settings.get().rate_limit.per_sender;
      return this.limiter.hit(`${m.channel}:${m.sender.id}`, limit, window) > 0 ? { kind: 'ignore' } : { kind: 'stranger' };
    }
    const { limit, window } = this.settings.get().rate_limit.per_sender;
    const { retryAfterMs, firstRefusal } = this.limiter.check(`${m.channel}:${m.sender.id}`, limit, window);
    if (retryAfterMs > 0) return { kind: 'rate_limited', retryAfterMs, notify: firstRefusal };
    return { kind: 'allow' };
  }

  /** The adapter's sink: resolves once the message is stored (or deliberately dropped). */
  async accept(adapter: ChannelAdapter, m: InboundMessage): Promise<void> {
    if (m.sender.isBot) return;
    if (m.callback) {
      const id = await this.inbound.record(m, `callback:${m.channel}`, 'answered');
      if (id) this.track(this.commands.callback(adapter, m));
      return;
    }
    const access = await this.decide(m);
    if (access.kind === 'ignore') return;
    const routed = this.route(m);
    const id = await this.inbound.record(m, routed.sessionKey, access.kind === 'allow' ? 'received' : 'refused');
    if (!id) return; // a redelivery: stored and handled the first time
    if (access.kind !== 'allow') {
      this.track(this.refuse(adapter, m, id, access));
      return;
    }
    const command = parseCommand(m.text, this.config.get().channels.command_prefix);
    if (command && command.name !== 'new' && this.commands.isImmediate(command.name)) {
      // /stop must not wait behind the run it stops.
      this.track(this.commands.run(adapter, m, id, routed, command).then(() => this.inbound.finish(id, 'answered')));
      return;
    }
    this.enqueue(adapter, id, m, routed);
  }

  /** Queued and unanswered messages from before a stop or crash, in their original order. */
  async recover(adapters: ChannelAdapter[]): Promise<number> {
    const byId = new Map(adapters.map((a) => [a.id, a]));
    const rows = await this.inbound.unanswered([...byId.keys()]);
    for (const row of rows)
      this.enqueue(byId.get(row.message.channel)!, row.id, row.message, { ...this.route(row.message), sessionKey: row.sessionKey });
    if (rows.length) this.logger.log(`answering ${rows.length} message(s) received before the last stop`);
    return rows.length;
  }

  /** Stops taking work: runs are aborted and their messages stay queued for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const c of this.running.values()) c.abort();
    await Promise.allSettled([...this.inflight]);
    await this.queue.drain();
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch((e: unknown) => this.logger.error(`channel task failed: ${(e as Error).stack ?? String(e)}`));
    this.inflight.add(t);
    void t.finally(() => this.inflight.delete(t));
  }

  private enqueue(adapter: ChannelAdapter, id: string, m: InboundMessage, routed: Routed): void {
    this.track(this.queue.run(routed.sessionKey, () => (this.stopping ? Promise.resolve() : this.process(adapter, id, m, routed))));
  }

  private async refuse(adapter: ChannelAdapter, m: InboundMessage, id: string, access: Access): Promise<void> {
    await this.log.append({ direction: 'refused', channel: m.channel, endpointId: m.sender.id, content: m.text });
    let reply: string | undefined;
    if (access.kind === 'stranger') {
      const outcome = await this.access.requestPairing(m.channel, {
        id: m.sender.id,
        name: m.sender.username ?? m.sender.name,
        chatId: m.chat.id,
      });
      if (outcome.kind === 'code' && outcome.isNew) {
        reply =
          `I only talk to people my owner has approved.\n\nYour pairing code: ${outcome.code} (valid for 1 hour)\n\n` +
          `Ask the owner to run: nestclaw pairing approve ${m.channel} ${outcome.code}`;
      }
    } else if (access.kind === 'rate_limited' && access.notify) {
      reply = `You're sending messages faster than I can answer. Please wait ${Math.ceil(access.retryAfterMs / 1000)} s and try again.`;
    }
    if (reply) await this.commands.reply(adapter, m, id, reply, access.kind === 'stranger' ? 'pairing' : 'notice');
  }

  private async process(adapter: ChannelAdapter, id: string, m: InboundMessage, routed: Routed): Promise<void> {
    const command = parseCommand(m.text, this.config.get().channels.command_prefix);
    if (command) {
      await this.commands.run(adapter, m, id, routed, command);
      return this.inbound.finish(id, 'answered');
    }
    const cfg = this.channelConfig(m.channel);
    const tooBig = m.media.find((x) => (x.sizeBytes ?? 0) > cfg.max_file_bytes);
    if (tooBig || (!m.text.trim() && m.media.length)) {
      await this.log.append({
        direction: 'refused',
        channel: m.channel,
        endpointId: m.sender.id,
        content: m.text || `[${m.media[0].kind}]`,
      });
      const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
      const why = tooBig
        ? `That file is too large (${mb(tooBig.sizeBytes ?? 0)}; the limit is ${mb(cfg.max_file_bytes)}). Please send something smaller or paste the text.`
        : `I can't read ${m.media[0].kind} messages yet; please send text.`;
      await this.commands.reply(adapter, m, id, why, 'notice');
      return this.inbound.finish(id, 'refused');
    }
    const already = await this.inbound.sentFor(id);
    if (already.some((o) => o.kind === 'reply')) return this.inbound.finish(id, 'answered'); // answered just before a crash
    const sessionId = await this.inbound.currentSession(routed.sessionKey);
    const controller = new AbortController();
    this.running.set(routed.sessionKey, controller);
    const preview = new StreamPreview(
      adapter,
      m.chat.id,
      m.threadId,
      cfg.stream_edit_interval,
      already.find((o) => o.kind === 'preview')?.platformMessageId ?? undefined,
      (pid, text) =>
        this.inbound.recordOutbound({
          channel: m.channel,
          chatId: m.chat.id,
          inboundId: id,
          part: 0,
          kind: 'preview',
          platformMessageId: pid,
          content: text,
        }),
    );
    const typing = this.startTyping(adapter, m);
    const attachments = m.media.map((x) => `[attachment: ${x.kind}${x.fileName ? ` ${x.fileName}` : ''}]`).join(' ');
    let reply: string;
    let status: 'answered' | 'failed' = 'answered';
    try {
      const result = await this.agent.run(
        {
          message: attachments ? `${m.text}\n${attachments}` : m.text,
          sessionId,
          agentId: routed.agentId,
          channel: m.channel,
          endpointId: m.sender.id,
          createSession: true,
        },
        {
          signal: controller.signal,
          stream: true,
          onEvent: (e) => {
            if (e.type === 'token') preview.push(e.text);
            else if ((e as { type: string }).type === 'approval_required') {
              // Declared by the tools work in AgentEvent; read structurally so this compiles with or without it.
              const a = e as unknown as { approvalId: string; tool?: string; input?: unknown };
              this.track(this.commands.askApproval(adapter, m, { id: a.approvalId, name: a.tool, input: a.input }));
            }
          },
        },
      );
      // A cancelled run may resolve (interrupted, partial reply) rather than throw, depending on where it stopped.
      const cancelled = result.interrupted || controller.signal.aborted;
      if (cancelled && this.stopping) {
        await preview.close();
        return; // stays queued; the next start answers it
      }
      reply = cancelled ? (result.reply.trim() ? `${result.reply}\n\n(stopped)` : 'Stopped.') : result.reply;
    } catch (e) {
      if (this.stopping) {
        await preview.close();
        return; // stays queued; the next start answers it
      }
      const cancelled = controller.signal.aborted || (isNestclawError(e) && e.code === 'cancelled');
      reply = cancelled
        ? 'Stopped.'
        : `Sorry, I could not answer that (${isNestclawError(e) ? e.code : 'internal error'}). Please try again.`;
      status = cancelled ? 'answered' : 'failed';
      if (!cancelled) this.logger.warn(`run for ${routed.sessionKey} failed: ${(e as Error).message}`);
    } finally {
      clearInterval(typing);
      if (this.running.get(routed.sessionKey) === controller) this.running.delete(routed.sessionKey);
    }
    const previewId = await preview.close();
    try {
      await deliverReply(adapter, m, reply, previewId, (o) => this.inbound.recordOutbound({ ...o, inboundId: id }));
    } catch (e) {
      // Retries are spent (or the chat refuses us, e.g. the user blocked the bot): do not retry this at every start.
      this.logger.warn(`could not deliver the reply to ${m.channel} chat ${m.chat.id}: ${(e as Error).message}`);
      status = 'failed';
    }
    await this.inbound.finish(id, status);
  }

  private startTyping(adapter: ChannelAdapter, m: InboundMessage): NodeJS.Timeout {
    const tick = () => void adapter.typing?.(m.chat.id, m.threadId).catch(() => undefined);
    tick();
    // Telegram shows "typing" for about 5 s per call.
    return setInterval(tick, 4000);
  }
}
