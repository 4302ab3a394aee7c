import { Injectable, Logger } from '@nestjs/common';
import { isNestclawError } from '@nestclaw/common';
import { AgentService, TurnResult } from '@nestclaw/agent';
import { ConfigService } from '@nestclaw/config';
import type { InboundMessage } from '../channel.port';
import type { Routed } from '../routing/message-router';
import { ChannelSessionRepository } from '../session/channel-session.repository';
import { ChannelTurn, TurnEvents, TurnOutcome } from './channel-turn';
import { CliTurnRunner } from './cli-turn.runner';
import { RunningTurns } from './running-turns';

/**
 * The agent's turn for one stored message, in the chat's current session (resolved once, here). The
 * turn is keyed by the inbound message, so a message retried after a crash gets its stored answer
 * back; one cut short is answered again in place of the unfinished attempt (never a second turn in
 * the transcript), unless a tool call that may have changed something had started: that one is
 * answered with a notice (`channels.recovery.interrupted_turns`, agent InterruptedTurns). What the
 * chat shows while it runs is the delivery stage's: this stage only hands over the turn's events.
 * A chat bound to a coding CLI is answered by the CLI bridge instead (CliTurnRunner).
 */
@Injectable()
export class ChannelTurnRunner {
  private readonly logger = new Logger('Channels');
  private stopping = false;

  constructor(
    private readonly agent: AgentService,
    private readonly sessions: ChannelSessionRepository,
    private readonly config: ConfigService,
    private readonly running: RunningTurns,
    private readonly cli: CliTurnRunner,
  ) {}

  /** Runs still going are aborted; their messages stay queued for the next start. */
  stop(): void {
    this.stopping = true;
    this.running.cancelAll();
  }

  /** Starts the turn and returns at once: delivery reads its events while it runs. */
  start(inboundId: string, m: InboundMessage, routed: Routed, recovered: boolean): ChannelTurn {
    if (routed.cli) return this.cli.start(inboundId, m, routed, recovered);
    const events = new TurnEvents();
    const outcome = this.run(events, inboundId, m, routed, recovered).finally(() => events.end());
    return { events, outcome };
  }

  private async run(events: TurnEvents, inboundId: string, m: InboundMessage, routed: Routed, recovered: boolean): Promise<TurnOutcome> {
    const sessionId = await this.sessions.current(routed.sessionKey);
    const controller = this.running.start(routed.sessionKey);
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
          interruptedTurns: this.config.get().channels.recovery.interrupted_turns,
        },
        {
          signal: controller.signal,
          stream: true,
          onEvent: (e) => {
            if (e.type === 'started' || e.type === 'token' || e.type === 'approval_required') events.push(e);
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
      this.running.end(routed.sessionKey, controller);
    }
  }
}
