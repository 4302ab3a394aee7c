import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { KeyedQueue } from '@nestclaw/common';
import { AgentConfig } from '@nestclaw/config';
import { beginTurn } from '@nestclaw/observability';
import { Approval, ApprovalService, HookRegistry } from '@nestclaw/tool';
import { AgentDirectory } from './agent.directory';
import type { CompactResult, TurnInput, TurnOptions, TurnResult } from './agent.types';
import { newSessionId } from './session/session-key';
import { TurnRepository } from './session/turn.repository';
import { sumUsage } from './turn/model-call';
import { TurnContextService } from './turn/turn-context.service';
import { TurnRunner } from './turn/turn.runner';

/**
 * The agent loop's front door: history → prompt → model → tools → … → reply, one turn at a time per
 * session. A tool call that needs approval pauses the turn; it resumes in-process, or from the
 * database after a restart or a client disconnect.
 */
@Injectable()
export class AgentService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Agent');
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly agents: AgentDirectory,
    private readonly sessions: TurnRepository,
    private readonly turns: TurnRunner,
    private readonly context: TurnContextService,
    private readonly approvals: ApprovalService,
    private readonly hooks: HookRegistry,
  ) {}

  onModuleInit(): void {
    // A decision nobody in this process was waiting for (restart, client gone): resume the turn.
    this.approvals.events.on('decided', ({ approval, delivered }) => {
      if (!delivered) void this.resume(approval);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const n = await this.sessions.interruptOpenTurns();
    if (n.turns > 0)
      this.logger.warn(`${n.turns} turn(s) and ${n.calls} model call(s) left open by an earlier crash were marked interrupted`);
    await this.approvals.recover();
  }

  agentConfig(agentId: string): AgentConfig {
    return this.agents.get(agentId);
  }

  /** Queues a turn behind earlier ones for the same session and runs it. */
  run(input: TurnInput, options: TurnOptions = {}): Promise<TurnResult> {
    const agentId = input.agentId ?? 'default';
    const agent = this.agents.runnable(agentId);
    const sessionId = input.sessionId ?? newSessionId();
    const create = input.createSession || !input.sessionId;
    const telemetry = beginTurn({ agent: agentId, channel: input.channel, sessionId, input: input.message });
    return this.queue.run(sessionId, () =>
      telemetry.run(() => this.turns.run({ ...input, sessionId, agentId, createSession: create }, agent, options)),
    );
  }

  /** Fires SessionEnd for a session whose conversation is over (channels and the CLI call this). */
  async endSession(sessionId: string, agentId = 'default'): Promise<void> {
    await this.hooks.sessionEnd({ sessionId, agentId });
  }

  /** `/compact` and `POST /v1/sessions/:id/compact`: summarise older turns now, queued behind running turns. */
  compact(sessionId: string, signal?: AbortSignal): Promise<CompactResult> {
    return this.queue.run(sessionId, async () => {
      const report = await this.context.compactNow(sessionId, (agentId) => this.agents.get(agentId), signal);
      if (report.calls.length) await this.sessions.recordProgress({ sessionId, turnId: randomUUID(), messages: [], calls: report.calls });
      return { sessionId, summarisedMessages: report.summarisedMessages, mergedSummaries: report.merged, usage: sumUsage(report.calls) };
    });
  }

  /** Continues a paused turn from the database once its approval is decided. */
  resume(approval: Approval): Promise<void> {
    return this.queue
      .run(approval.sessionId, () => this.turns.resume(approval))
      .catch((e: unknown) => this.logger.error(`resuming turn ${approval.turnId} failed: ${(e as Error).message}`));
  }
}
