import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { WorkspaceLocator } from '@nestclaw/tool';
import { heartbeatTasksIn } from './heartbeat-file';
import { heartbeatDayStart, heartbeatSlot, nextHeartbeatAt } from './heartbeat-schedule';
import { HeartbeatRecord, HeartbeatRepository } from './heartbeat.repository';
import { SchedulerClock } from './scheduler.clock';

/** One agent's heartbeat as the Jobs page shows it (GET /v1/heartbeats). */
export interface HeartbeatStatus {
  agentId: string;
  enabled: boolean;
  intervalMs: number;
  /** Local HH:MM in `timezone`, or null: no quiet hours. */
  quietHours: { start: string; end: string } | null;
  timezone: string;
  dailyTokenCap: number;
  /** Tokens (in + out) its heartbeats spent this UTC day. */
  tokensToday: number;
  /** The chat replies with news go to, or null: none is sent. */
  deliverTo: { channel: string; chatId: string } | null;
  /** Whether HEARTBEAT.md asks for anything now; when not, a beat calls no model and records no run. */
  hasTasks: boolean;
  lastRun: HeartbeatRecord['lastRun'];
  /** When it next beats (null while disabled). */
  nextDueAt: string | null;
  /** `heartbeat:<agent>` once a heartbeat turn made it (its transcript is the run history), else null. */
  sessionId: string | null;
}

/**
 * Every configured agent's heartbeat: its settings from the live config, what its rows say about the
 * last beat and today's spend, and its next beat by the same rules the HeartbeatService follows. Read
 * only: turning a heartbeat on or off is a config change (`agents.<id>.heartbeat`).
 */
@Injectable()
export class HeartbeatStatusService {
  constructor(
    private readonly config: ConfigService,
    private readonly workspaces: WorkspaceLocator,
    private readonly clock: SchedulerClock,
    private readonly rows: HeartbeatRepository,
  ) {}

  async list(): Promise<HeartbeatStatus[]> {
    const now = this.clock.now();
    const agents = Object.entries(this.config.get().agents);
    const found = await this.rows.findRecords(
      agents.map(([id]) => id),
      heartbeatDayStart(now),
    );
    const records = new Map(found.map((r) => [r.agentId, r]));
    return agents.map(([agentId, agent]) => {
      const hb = agent.heartbeat;
      const record = records.get(agentId);
      const lastRun = record?.lastRun ?? null;
      const tokensToday = record?.tokensToday ?? 0;
      const hasTasks = heartbeatTasksIn(this.workspaces.agentDir(agentId)) !== undefined;
      const slot = heartbeatSlot(now, hb.interval).getTime();
      // With nothing to do the current slot's check (within a minute of its start) records no run: none is awaited.
      const slotDone = !hasTasks || (lastRun !== null && new Date(lastRun.dueAt).getTime() >= slot);
      const capped = tokensToday >= hb.daily_token_cap;
      return {
        agentId,
        enabled: hb.enabled,
        intervalMs: hb.interval,
        quietHours: hb.quiet_hours ?? null,
        timezone: agent.timezone,
        dailyTokenCap: hb.daily_token_cap,
        tokensToday,
        deliverTo: hb.deliver_to ? { channel: hb.deliver_to.channel, chatId: hb.deliver_to.chat_id } : null,
        hasTasks,
        lastRun,
        nextDueAt: hb.enabled ? nextHeartbeatAt(now, hb, agent.timezone, { slotDone, capped }).toISOString() : null,
        sessionId: record?.hasSession ? `heartbeat:${agentId}` : null,
      };
    });
  }
}
