import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import { WorkspaceLocator } from '@nestclaw/tool';
import { AgentService } from '../agent.service';
import { actionableHeartbeat, HEARTBEAT_NOTHING, heartbeatPrompt } from './heartbeat-file';
import { SchedulerClock } from './scheduler.clock';

const INTERVAL_NAME = 'nestclaw:heartbeat';
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
 * heartbeat session, within a daily token cap.
 */
@Injectable()
export class HeartbeatService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Heartbeat');
  private readonly last = new Map<string, number>();
  private readonly spent = new Map<string, { day: string; tokens: number; warned: boolean }>();
  private running: Promise<void> | undefined;
  readonly stats: HeartbeatStats = { runs: 0, idle: 0, capped: 0, silent: 0 };

  constructor(
    private readonly config: ConfigService,
    private readonly agent: AgentService,
    private readonly workspaces: WorkspaceLocator,
    private readonly clock: SchedulerClock,
    private readonly registry: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const any = Object.values(this.config.get().agents).some((a) => a.heartbeat.enabled);
    if (any)
      this.registry.addInterval(
        INTERVAL_NAME,
        setInterval(() => void this.tick(), CHECK_EVERY_MS),
      );
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.registry.doesExist('interval', INTERVAL_NAME)) this.registry.deleteInterval(INTERVAL_NAME);
    await this.running;
  }

  /** Runs the heartbeats that are due now (one pass at a time). */
  tick(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const now = this.clock.now();
    for (const [agentId, agent] of Object.entries(this.config.get().agents)) {
      const hb = agent.heartbeat;
      if (!hb.enabled) continue;
      const last = this.last.get(agentId);
      if (last !== undefined && now.getTime() - last < hb.interval) continue;
      if (inQuietHours(now, agent)) continue;
      this.last.set(agentId, now.getTime());
      await this.beat(agentId, agent, now).catch((e: unknown) =>
        this.logger.warn(`heartbeat of agent ${agentId} failed: ${(e as Error).message}`),
      );
    }
  }

  private async beat(agentId: string, agent: AgentConfig, now: Date): Promise<void> {
    let text = '';
    try {
      text = readFileSync(join(this.workspaces.agentDir(agentId), 'HEARTBEAT.md'), 'utf8');
    } catch {
      // no file: nothing to do
    }
    const tasks = actionableHeartbeat(text);
    if (!tasks) {
      this.stats.idle++;
      return;
    }
    const day = now.toISOString().slice(0, 10);
    const spent = this.spent.get(agentId)?.day === day ? this.spent.get(agentId)! : { day, tokens: 0, warned: false };
    this.spent.set(agentId, spent);
    if (spent.tokens >= agent.heartbeat.daily_token_cap) {
      this.stats.capped++;
      if (!spent.warned) {
        spent.warned = true;
        this.logger.warn(
          `agent ${agentId}: heartbeat daily token cap (${agent.heartbeat.daily_token_cap}) reached; paused until tomorrow (UTC)`,
        );
      }
      return;
    }
    this.stats.runs++;
    const r = await this.agent.run({
      message: heartbeatPrompt(tasks),
      sessionId: `heartbeat:${agentId}`,
      createSession: true,
      agentId,
      channel: 'heartbeat',
      promptMode: 'minimal',
    });
    spent.tokens += r.usage.inputTokens + r.usage.outputTokens;
    if (r.reply.trim() === HEARTBEAT_NOTHING) this.stats.silent++;
  }
}

function inQuietHours(now: Date, agent: AgentConfig): boolean {
  const q = agent.heartbeat.quiet_hours;
  if (!q) return false;
  let hhmm: string;
  try {
    hhmm = now.toLocaleTimeString('en-GB', { timeZone: agent.timezone, hour: '2-digit', minute: '2-digit', hour12: false });
  } catch {
    hhmm = now.toISOString().slice(11, 16);
  }
  return q.start <= q.end ? hhmm >= q.start && hhmm < q.end : hhmm >= q.start || hhmm < q.end;
}
