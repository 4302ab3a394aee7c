import { Injectable } from '@nestjs/common';
import { AgentService } from '@nestclaw/agent';
import { ConfigService } from '@nestclaw/config';
import { ChannelSessionRepository } from '../session/channel-session.repository';
import type { Routed } from '../routing/message-router';
import { RunningTurns } from '../turn/running-turns';

/** The chat commands about the conversation itself: `/new`, `/stop`, `/status`, `/compact`. */
@Injectable()
export class SessionCommands {
  constructor(
    private readonly config: ConfigService,
    private readonly pointers: ChannelSessionRepository,
    private readonly running: RunningTurns,
    private readonly agent: AgentService,
  ) {}

  async startNew(routed: Routed, sessionId: string): Promise<string> {
    await this.agent.endSession(sessionId, routed.agentId);
    const next = await this.pointers.startNew(routed.sessionKey);
    return `Started a fresh conversation (session ${next}).`;
  }

  /**
   * Stops the chat's answer here at once, and asks every replica to stop the session's turn: after a
   * channel failover the answer may still be running on the previous owner (issue 24).
   */
  async stop(routed: Routed, sessionId: string): Promise<string> {
    const here = this.running.cancel(routed.sessionKey);
    await this.agent.cancel({ sessionId });
    return here ? 'Stopping the current answer.' : 'Asked to stop the current answer, if one is running.';
  }

  async compact(sessionId: string): Promise<string> {
    const r = await this.agent.compact(sessionId).catch((e: Error) => e);
    if (r instanceof Error) return `Could not compact: ${r.message}`;
    if (!r.summarisedMessages && !r.mergedSummaries) return 'Nothing to compact yet.';
    return `Compacted: ${r.summarisedMessages} older message(s) summarised${r.mergedSummaries ? `, ${r.mergedSummaries} summaries merged` : ''}.`;
  }

  async status(routed: Routed, sessionId: string): Promise<string> {
    const { agentId } = routed;
    const running = this.running.isRunning(routed.sessionKey);
    const cfg = this.config.get();
    const model = cfg.agents[agentId]?.model ?? cfg.providers.primary ?? Object.keys(cfg.models)[0] ?? '(none)';
    const s = await this.pointers.usage(sessionId);
    return [
      `model: ${model}`,
      `agent: ${agentId}`,
      `session: ${sessionId}${running ? ' (answering now)' : ''}`,
      s ? `tokens: ${s.inputTokens} in / ${s.outputTokens} out` : 'tokens: 0 (no messages yet)',
      s ? `cost: $${s.costUsd.toFixed(4)}` : 'cost: $0',
    ].join('\n');
  }
}
