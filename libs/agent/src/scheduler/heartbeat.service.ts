import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import { recordHeartbeatCapReached } from '@nestclaw/observability';
import { WorkspaceLocator } from '@nestclaw/tool';
import { AgentService } from '../agent.service';
import { HEARTBEAT_NOTHING, heartbeatPrompt, heartbeatTasksIn } from './heartbeat-file';
import { heartbeatDayStart, heartbeatSlot, inQuietHours } from './heartbeat-schedule';
import { HeartbeatRepository } from './heartbeat.repository';
import { JobOutputDispatcher } from './job-output.dispatcher';
import { SchedulerClock } from './scheduler.clock';

const CHECK_EVERY_MS = 60_000;

export interface HeartbeatStats {
  /** Heartbeats that called the model. */
  runs: number;
  /** Heartbeats skipped because HEARTBEAT.md asked for nothing (no model call). */
  idle: number;
  /** Heartbeats refused by the daily token cap. */
  capped: number;
  /** Replies that said nothing new (not delivered). */
  silent: number;
}

/**
 * Per-agent heartbeat (off by default): every `interval`, outside quiet hours, read the agent's
 * HEARTBEAT.md; when it asks for something, run a turn with the minimal prompt in the agent's
 * heartbeat session, within a daily token cap, and send a reply with news to the owner's default
 * chat (`heartbeat.deliver_to`). Each interval slot and the day's spend live in Postgres
 * (HeartbeatRepository), so restarts and several gateways neither beat twice nor forget the cap. When a
 * slot beats is heartbeat-schedule.ts, which GET /v1/heartbeats reads too.
 */
@Injectable()
export class HeartbeatService implements OnApplicationShutdown {
  private readonly logger = new Logger('Heartbeat');
  /** The slot each agent last handled here: saves the database a look every minute within a slot. */
  private readonly lastSlot = new Map<string, number>();
  /** The slot each agent's HEARTBEAT.md last asked nothing in: checked again until it asks or the slot ends. */
  private readonly idleSlot = new Map<string, number>();
  private readonly warnedDay = new Map<string, string>();
  private running: Promise<void> | undefined;
  readonly stats: HeartbeatStats = { runs: 0, idle: 0, capped: 0, silent: 0 };

  constructor(
    private readonly config: ConfigService,
    private readonly agent: AgentService,
    private readonly workspaces: WorkspaceLocator,
    private readonly clock: SchedulerClock,
    private readonly rows: HeartbeatRepository,
    private readonly outputs: JobOutputDispatcher,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.running;
  }

  /** Runs the heartbeats that are due now (one pass at a time); a no-op when no agent has one. */
  @Interval('nestclaw:heartbeat', CHECK_EVERY_MS)
  tick(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const now = this.clock.now();
    for (const [agentId, agent] of Object.entries(this.config.get().agents)) {
      const hb = agent.heartbeat;
      if (!hb.enabled) continue;
      const slot = heartbeatSlot(now, hb.interval);
      const idleAgain = this.idleSlot.get(agentId) === slot.getTime();
      if (this.lastSlot.get(agentId) === slot.getTime() && !idleAgain) continue;
      if (inQuietHours(now, hb, agent.timezone)) continue;
      // A slot found idle is looked at again each minute (a file read, no SQL): tasks added to
      // HEARTBEAT.md during it run in it, as GET /v1/heartbeats says ("now").
      if (idleAgain && !heartbeatTasksIn(this.workspaces.agentDir(agentId))) continue;
      this.lastSlot.set(agentId, slot.getTime());
      this.idleSlot.delete(agentId);
      await this.beat(agentId, agent, now, slot).catch((e: unknown) =>
        this.logger.warn(`heartbeat of agent ${agentId} failed: ${(e as Error).message}`),
      );
    }
  }

  private async beat(agentId: string, agent: AgentConfig, now: Date, slot: Date): Promise<void> {
    const tasks = heartbeatTasksIn(this.workspaces.agentDir(agentId));
    if (!tasks) {
      this.stats.idle++;
      this.idleSlot.set(agentId, slot.getTime());
      return;
    }
    const to = agent.heartbeat.deliver_to;
    const target = to ? { channel: to.channel, chatId: to.chat_id } : undefined;
    const jobId = await this.rows.ensureJob(agentId, target);
    const day = now.toISOString().slice(0, 10);
    const spent = await this.rows.tokensSince(jobId, heartbeatDayStart(now));
    if (spent >= agent.heartbeat.daily_token_cap) return this.capped(agentId, agent, day);
    const runId = await this.rows.claimSlot(jobId, slot, now);
    if (!runId) return; // this slot already beat (before a restart, or in another gateway)
    this.stats.runs++;
    let r: Awaited<ReturnType<AgentService['run']>>;
    try {
      r = await this.agent.run({
        message: heartbeatPrompt(tasks),
        sessionId: `heartbeat:${agentId}`,
        createSession: true,
        agentId,
        channel: 'heartbeat',
        promptMode: 'minimal',
      });
    } catch (e) {
      const none = { tokens: { input: 0, output: 0 }, costUsd: 0 };
      await this.rows.finish(runId, { status: 'error', error: (e as Error).message, ...none }, undefined, this.clock.now());
      throw e;
    }
    const reply = r.reply.trim();
    const silent = !reply || reply === HEARTBEAT_NOTHING;
    if (silent) this.stats.silent++;
    const output = !silent && target ? { text: r.reply, leaseUntil: this.outputs.leaseUntil() } : undefined;
    const usage = { tokens: { input: r.usage.inputTokens, output: r.usage.outputTokens }, costUsd: r.usage.costUsd };
    await this.rows.finish(runId, { status: 'ok', turnId: r.turnId, ...usage }, output, this.clock.now());
    if (output && target) await this.outputs.deliver({ runId, jobId, agentId, kind: 'heartbeat', target, text: output.text });
  }

  private capped(agentId: string, agent: AgentConfig, day: string): void {
    this.stats.capped++;
    recordHeartbeatCapReached(agentId);
    if (this.warnedDay.get(agentId) === day) return;
    this.warnedDay.set(agentId, day);
    this.logger.warn(
      `agent ${agentId}: heartbeat daily token cap (${agent.heartbeat.daily_token_cap}) reached; paused until tomorrow (UTC)`,
    );
  }
}
