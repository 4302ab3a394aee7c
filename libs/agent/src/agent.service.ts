import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { Approval } from '@nestclaw/tool';
import type { CompactResult, TurnInput, TurnOptions, TurnResult } from './agent.types';
import { CancelTarget, TurnControl } from './control/turn-control';
import { AdmitStage } from './turn/admit.stage';
import { CloseStage } from './turn/close.stage';
import { LoopStage } from './turn/loop.stage';
import { sumUsage } from './turn/model-call';
import { OpenStage } from './turn/open.stage';
import { PrepareStage } from './turn/prepare.stage';
import type { AdmittedTurn } from './turn/turn.types';

/**
 * The agent's turn, each stage entered once and in this order (turn.types.ts has what passes between them):
 * admit (agent, budget, the session's lane) → open (hooks, the opening statement) → prepare (prompt,
 * fitted history and compaction, recalled memories, tool definitions) → loop (model ⇄ tool steps) →
 * close (the closing statement, `done`, remembering). A new message, a retried inbound message and
 * a paused turn resumed after its approval (in-process, or from the database after a restart or a
 * client disconnect) all take this path; one settled when it opens goes from open to close. Every
 * turn is registered with TurnControl while it runs, so a cancel from any replica reaches it.
 */
@Injectable()
export class AgentService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly admit: AdmitStage,
    private readonly open: OpenStage,
    private readonly prepare: PrepareStage,
    private readonly loop: LoopStage,
    private readonly close: CloseStage,
    private readonly control: TurnControl,
  ) {}

  onModuleInit(): void {
    // A decision nobody in this process was waiting for (restart, client gone): resume the turn.
    this.control.onUndeliveredDecision((approval) => void this.resume(approval));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.open.interruptLeftovers();
    await this.control.recoverApprovals();
  }

  /** A new message: admitted (or refused) now, then run behind earlier turns of its session. */
  run(input: TurnInput, options: TurnOptions = {}): Promise<TurnResult> {
    const admitted = this.admit.message(input);
    const tracked = this.control.track(options.signal);
    if (admitted.input.sessionId) tracked.identify(admitted.input.sessionId);
    const onEvent: TurnOptions['onEvent'] = (e) => {
      if (e.type === 'started') tracked.identify(e.sessionId, e.turnId);
      options.onEvent?.(e);
    };
    // A message's turn always ends in a result: only a decided approval can find its turn stale.
    return (
      this.admit.lane(admitted.input.sessionId, () =>
        admitted.telemetry.run(() => this.pass(admitted, { ...options, signal: tracked.signal, onEvent })),
      ) as Promise<TurnResult>
    ).finally(() => tracked.end());
  }

  /** Stops the target's running turn on whichever replica runs it (`/stop`, WebSocket and HTTP cancel). */
  cancel(target: CancelTarget): Promise<void> {
    return this.control.cancel(target);
  }

  /** Continues a paused turn from the database once its approval is decided. */
  resume(approval: Approval): Promise<void> {
    const tracked = this.control.track();
    tracked.identify(approval.sessionId, approval.turnId);
    return this.admit
      .lane(approval.sessionId, async () => {
        await this.pass(this.admit.approval(approval), { signal: tracked.signal });
      })
      .catch((e: unknown) => this.logger.error(`resuming turn ${approval.turnId} failed: ${(e as Error).message}`))
      .finally(() => tracked.end());
  }

  /** `/compact` and `POST /v1/sessions/:id/compact`: summarise older turns now, in the session's lane. */
  compact(sessionId: string, signal?: AbortSignal): Promise<CompactResult> {
    return this.admit.lane(sessionId, async () => {
      const report = await this.prepare.compactNow(sessionId, signal);
      await this.close.recordCompaction(sessionId, report.calls);
      return { sessionId, summarisedMessages: report.summarisedMessages, mergedSummaries: report.merged, usage: sumUsage(report.calls) };
    });
  }

  /** Fires SessionEnd for a session whose conversation is over (channels and the CLI call this). */
  endSession(sessionId: string, agentId = 'default'): Promise<void> {
    return this.close.endSession(sessionId, agentId);
  }

  private async pass(admitted: AdmittedTurn, options: TurnOptions): Promise<TurnResult | undefined> {
    const opened = await this.open.open(admitted, options.signal);
    if (opened.kind === 'replay' || opened.kind === 'notify' || opened.kind === 'stale') return this.close.settled(opened, options);
    const prepared = await this.prepare.prepare(opened, options.signal);
    const outcome = await this.loop.run(prepared, options);
    return this.close.close(prepared, outcome, options);
  }
}
