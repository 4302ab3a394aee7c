import { Injectable } from '@nestjs/common';
import { SkillCatalog } from '@nestclaw/agent';
import { ConfigService } from '@nestclaw/config';
import { UsageService } from '@nestclaw/provider';

/** One configured agent as the control UI's Agents page shows it. */
export interface AgentOverview {
  id: string;
  /** The model it asks first (its own, else `providers.primary`; null: neither is set). */
  model: string | null;
  fallback: string[];
  tools: string[];
  skills: { name: string; source: string; available: boolean; unavailable?: string }[];
  /** Long-term memory recalled into its turns (`memory.enabled`, one switch for every agent). */
  memory: boolean;
  heartbeat: { enabled: boolean; intervalMs: number };
  /** `agents.<id>.budget`, or null when it has none. */
  budget: { dailyUsd: number | null; monthlyUsd: number | null; warnAt: number; enforce: boolean } | null;
  /** Spent this UTC day and month, from the llm_calls ledger (what the budget is held against). */
  spend: { dayUsd: number; monthUsd: number };
}

/**
 * Each agent's effective settings and its spend against its budget. Read from the live config (a
 * hot-reloaded agent shows at once) and the ledger itself, not the budget's per-minute copy, so the
 * figures are those of this moment.
 */
@Injectable()
export class AgentsOverviewService {
  constructor(
    private readonly config: ConfigService,
    private readonly skills: SkillCatalog,
    private readonly usage: UsageService,
  ) {}

  async list(now = new Date()): Promise<AgentOverview[]> {
    const cfg = this.config.get();
    const spend = await this.usage.spendByAgent(now);
    return Object.entries(cfg.agents).map(([id, agent]) => {
      const s = spend.get(id) ?? { day: 0, month: 0 };
      const b = agent.budget;
      return {
        id,
        model: agent.model ?? cfg.providers.primary ?? null,
        fallback: agent.fallback ?? cfg.providers.fallback,
        tools: agent.tools,
        skills: this.skills.list(id).map((k) => ({
          name: k.name,
          source: k.source,
          available: !k.unavailable,
          ...(k.unavailable ? { unavailable: k.unavailable } : {}),
        })),
        memory: cfg.memory.enabled,
        heartbeat: { enabled: agent.heartbeat.enabled, intervalMs: agent.heartbeat.interval },
        budget: b ? { dailyUsd: b.daily_usd ?? null, monthlyUsd: b.monthly_usd ?? null, warnAt: b.warn_at, enforce: b.enforce } : null,
        spend: { dayUsd: s.day, monthUsd: s.month },
      };
    });
  }
}
