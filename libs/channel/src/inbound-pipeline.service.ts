import { Injectable, Logger } from '@nestjs/common';
import { recordInbound } from '@nestclaw/observability';
import { KeyedQueue } from '@nestclaw/common';
import { Access, AccessPolicy } from './access/access-policy';
import type { ChannelAdapter, InboundMessage } from './channel.port';
import { ChatCommands } from './commands/chat-commands';
import { ReplyDelivery } from './delivery/reply-delivery.service';
import { InboundRepository } from './inbound/inbound.repository';
import { isImmediate } from './routing/command-parser';
import { MessageRouter, Routed } from './routing/message-router';
import { ChannelTurnRunner } from './turn/channel-turn.runner';

/**
 * The path of one inbound message, each stage visited once and in this order:
 * access (allow / pair / refuse) → routing (agent, session key, command or turn) → inbound (durable
 * record, dedupe; the adapter may acknowledge once it is stored) → command or turn (each resolves the
 * chat's current session once) → delivery (preview and approval cards while a turn runs; split, send,
 * record) → the inbound row answered. Messages of one session run in order; commands that concern a
 * run in progress skip the queue. A chat bound to a coding CLI takes the same path with the CLI
 * bridge as its turn (routing says so; a message behind a busy CLI is told it waits).
 */
@Injectable()
export class InboundPipeline {
  private readonly logger = new Logger('Channels');
  private readonly queue = new KeyedQueue();
  private readonly inflight = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(
    private readonly access: AccessPolicy,
    private readonly router: MessageRouter,
    private readonly inbound: InboundRepository,
    private readonly commands: ChatCommands,
    private readonly turns: ChannelTurnRunner,
    private readonly delivery: ReplyDelivery,
  ) {}

  /** The adapter's sink: resolves once the message is stored (or deliberately dropped). */
  async accept(adapter: ChannelAdapter, m: InboundMessage): Promise<void> {
    if (m.sender.isBot) return;
    if (m.callback) {
      const id = await this.inbound.record(m, `callback:${m.channel}`, 'answered');
      if (id) this.track(this.commands.press(adapter, m));
      return;
    }
    const access = await this.access.decide(m);
    if (access.kind === 'ignore') return;
    const routed = this.router.route(m);
    const id = await this.inbound.record(m, routed.sessionKey, access.kind === 'allow' ? 'received' : 'refused');
    if (!id) return recordInbound(m.channel, 'duplicate'); // a redelivery: stored and handled the first time
    if (access.kind !== 'allow') {
      recordInbound(m.channel, 'refused');
      return this.track(this.refuse(adapter, m, access));
    }
    // /stop must not wait behind the run it stops.
    if (routed.command && isImmediate(routed.command)) return this.track(this.answer(adapter, id, m, routed, false));
    if (routed.cli?.busy)
      this.track(this.delivery.deliver(adapter, m, undefined, `${routed.cli.name} is busy; your message is queued.`, 'notice'));
    this.enqueue(adapter, id, m, routed, false);
  }

  /**
   * Queued and unanswered messages a stopped, crashed or cut-off replica (this process's previous
   * run included) left, in their original order; claimed for this replica, so a message another
   * live replica is answering is never run twice.
   */
  async recover(adapters: ChannelAdapter[]): Promise<number> {
    const byId = new Map(adapters.map((a) => [a.id, a]));
    const rows = await this.inbound.claimUnanswered([...byId.keys()]);
    for (const row of rows)
      this.enqueue(
        byId.get(row.message.channel)!,
        row.id,
        row.message,
        { ...this.router.route(row.message), sessionKey: row.sessionKey },
        true,
      );
    if (rows.length) this.logger.log(`answering ${rows.length} message(s) a stopped replica left unanswered`);
    return rows.length;
  }

  /** Stops taking work: runs are aborted and their messages stay queued for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.turns.stop();
    await Promise.allSettled([...this.inflight]);
    await this.queue.drain();
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch((e: unknown) => this.logger.error(`channel task failed: ${(e as Error).stack ?? String(e)}`));
    this.inflight.add(t);
    void t.finally(() => this.inflight.delete(t));
  }

  private enqueue(adapter: ChannelAdapter, id: string, m: InboundMessage, routed: Routed, recovered: boolean): void {
    this.track(
      this.queue.run(routed.sessionKey, () => (this.stopping ? Promise.resolve() : this.answer(adapter, id, m, routed, recovered))),
    );
  }

  private async refuse(adapter: ChannelAdapter, m: InboundMessage, access: Access): Promise<void> {
    const reply = await this.access.refusalReply(m, access);
    // Refused rows are never retried, so nothing can send this twice.
    if (reply) await this.delivery.deliver(adapter, m, undefined, reply.text, reply.kind);
  }

  /** A stored message's command or turn, then its delivery, then the record that it was answered. */
  private async answer(adapter: ChannelAdapter, id: string, m: InboundMessage, routed: Routed, recovered: boolean): Promise<void> {
    const { command } = routed;
    if (command && !routed.cli) {
      const text = await this.commands.run(m, { ...routed, command });
      await this.delivery.deliver(adapter, m, id, text, 'command');
      return this.inbound.finish(id, 'answered');
    }
    const turn = this.turns.start(id, m, routed, recovered);
    const status = await this.delivery.replyTo(adapter, m, id, turn, recovered);
    if (status === 'requeue') return;
    if (status === 'answered') recordInbound(m.channel, 'answered');
    await this.inbound.finish(id, status);
  }
}
