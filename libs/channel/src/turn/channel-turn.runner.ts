import { Injectable, Logger } from '@nestjs/common';
import { isNestclawError } from '@nestclaw/common';
import { AgentService, TurnResult } from '@nestclaw/agent';
import { ConfigService } from '@nestclaw/config';
import type { ChannelAdapter, InboundMessage } from '../channel.port';
import { ApprovalCommands } from '../commands/approval-commands';
import { ReplyDelivery } from '../delivery/reply-delivery.service';
import { InboundRepository } from '../inbound/inbound.repository';
import type { Routed } from '../routing/message-router';
import { channelConfig } from '../channel-config';
import { RunningTurns } from './running-turns';

/** What the delivery stage sends, or `requeue`: the gateway is stopping and the next start answers it. */
export type TurnOutcome = { kind: 'reply'; text: string; status: 'answered' | 'failed' } | { kind: 'requeue' };

/**
 * The agent's turn for one stored message, with typing and a live preview. The turn is keyed by the
 * inbound message, so a message retried after a crash gets its stored answer back; one cut short is
 * answered again in place of the unfinished attempt (never a second turn in the transcript), unless
 * a tool call that may have changed something had started: that one is answered with a notice
 * (`channels.recovery.interrupted_turns`, agent InterruptedTurns).
 */
@Injectable()
export class ChannelTurnRunner {
  private readonly logger = new Logger('Channels');
  private stopping = false;

  constructor(
    private readonly agent: AgentService,
    private readonly inbound: InboundRepository,
    private readonly config: ConfigService,
    private readonly running: RunningTurns,
    private readonly delivery: ReplyDelivery,
    private readonly approvals: ApprovalCommands,
  ) {}

  /** Runs still going are aborted; their messages stay queued for the next start. */
  stop(): void {
    this.stopping = true;
    this.running.cancelAll();
  }

  async run(adapter: ChannelAdapter, inboundId: string, m: InboundMessage, routed: Routed, recovered: boolean): Promise<TurnOutcome> {
    const config = this.config.get();
    const cfg = channelConfig(config, m.channel);
    const sessionId = await this.inbound.currentSession(routed.sessionKey);
    const controller = this.running.start(routed.sessionKey);
    const preview = await this.delivery.preview(adapter, m, inboundId, cfg.stream_edit_interval, recovered);
    const typing = startTyping(adapter, m);
    const attachments = m.media.map((x) => `[attachment: ${x.kind}${x.fileName ? ` ${x.fileName}` : ''}]`).join(' ');
    try {
      const result: TurnResult = await this.agent.run(
        {
          message: attachments ? `${m.text}\n${attachments}` : m.text,
          sessionId,
          agentId: routed.agentId,
          channel: m.channel,
          endpointId: m.sender.id,
          createSession: true,
          inboundKey: `${m.channel}:${inboundId}`,
          recovered,
          interruptedTurns: config.channels.recovery.interrupted_turns,
        },
        {
          signal: controller.signal,
          stream: true,
          onEvent: (e) => {
            if (e.type === 'started') preview.begin();
            else if (e.type === 'token') preview.push(e.text);
            else if (e.type === 'approval_required')
              void this.approvals.ask(adapter, m, {
                id: e.approvalId,
                name: e.tool,
                input: e.input,
                reason: e.reason,
                ownerOnly: e.ownerOnly,
              });
          },
        },
      );
      // A cancelled run may resolve (interrupted, partial reply) rather than throw, depending on where it stopped.
      const cancelled = result.interrupted || controller.signal.aborted;
      if (cancelled && this.stopping) return { kind: 'requeue' };
      const text = cancelled ? (result.reply.trim() ? `${result.reply}\n\n(stopped)` : 'Stopped.') : result.reply;
      return { kind: 'reply', text, status: 'answered' };
    } catch (e) {
      if (this.stopping) return { kind: 'requeue' };
      if (controller.signal.aborted || (isNestclawError(e) && e.code === 'cancelled'))
        return { kind: 'reply', text: 'Stopped.', status: 'answered' };
      this.logger.warn(`run for ${routed.sessionKey} failed: ${(e as Error).message}`);
      const code = isNestclawError(e) ? e.code : 'internal error';
      return { kind: 'reply', text: `Sorry, I could not answer that (${code}). Please try again.`, status: 'failed' };
    } finally {
      clearInterval(typing);
      this.running.end(routed.sessionKey, controller);
      await preview.close();
    }
  }
}

function startTyping(adapter: ChannelAdapter, m: InboundMessage): NodeJS.Timeout {
  const tick = () => void adapter.typing?.(m.chat.id, m.threadId).catch(() => undefined);
  tick();
  // Telegram shows "typing" for about 5 s per call.
  return setInterval(tick, 4000);
}
