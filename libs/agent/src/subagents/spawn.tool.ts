import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { HookRegistry, Tool, ToolError, ToolRuntime } from '@nestclaw/tool';
import { AgentService } from '../agent.service';
import { SUBAGENT_CHANNEL } from '../turn/turn.types';
import { SubagentRunRepository } from './subagent-run.repository';

const input = z.object({
  task: z.string().min(1).max(8000).describe('What the subagent should do; it sees only this, not the conversation'),
  agentId: z.string().min(1).optional().describe('Agent to run it (default: this one)'),
});

export const SUBAGENT_MARK = ':subagent:';

export interface SubagentReport {
  id: string;
  agentId: string;
  status: 'ok' | 'error' | 'cancelled' | 'timeout';
  result: string;
  durationMs: number;
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
}

/**
 * Runs a task in a child session (`agent:<id>:subagent:<uuid>`) with the minimal prompt and returns
 * its structured report as the tool result, so it lands in the parent's transcript. Subagents may
 * not spawn; the parent agent's `subagents` config limits who, how many, how long and how much.
 * `allow_agents: ["*"]` reaches only agents whose tools the parent holds too; an agent with more
 * tools must be named.
 * Cancelling the parent turn (/stop, disconnect) cancels the child through the same signal. Each
 * child is a subagent_runs row, so the per-session count and spend survive a restart.
 * The child turn enters through AgentService like any other; no cycle: the tool registry holds
 * tools but depends on none (AgentModule registers this one once the graph is built).
 */
@Injectable()
export class SpawnTool implements Tool<typeof input> {
  readonly name = 'spawn';
  readonly description = 'Hand a self-contained task to a subagent and get its report.';
  readonly input = input;
  constructor(
    private readonly config: ConfigService,
    private readonly agents: AgentService,
    private readonly hooks: HookRegistry,
    private readonly runs: SubagentRunRepository,
  ) {}

  async execute(ctx: ToolRuntime, { task, agentId }: z.output<typeof input>, signal: AbortSignal): Promise<string> {
    if (ctx.sessionId.includes(SUBAGENT_MARK)) throw new ToolError('a subagent cannot start subagents');
    const cfg = this.config.get();
    const limits = cfg.agents[ctx.agentId]?.subagents;
    const target = agentId ?? ctx.agentId;
    if (!limits || limits.allow_agents.length === 0)
      throw new ToolError(`agent "${ctx.agentId}" may not start subagents (subagents.allow_agents is empty)`);
    if (!limits.allow_agents.includes('*') && !limits.allow_agents.includes(target)) {
      throw new ToolError(`agent "${ctx.agentId}" may not start agent "${target}" (allowed: ${limits.allow_agents.join(', ')})`);
    }
    if (!cfg.agents[target]) throw new ToolError(`unknown agent "${target}"`);
    if (!limits.allow_agents.includes(target)) {
      // "*" never reaches more power than the parent holds; naming an agent is the owner's deliberate grant.
      const mine = new Set(cfg.agents[ctx.agentId]?.tools ?? []);
      const beyond = cfg.agents[target].tools.filter((t) => !mine.has(t) && t !== this.name);
      if (beyond.length)
        throw new ToolError(
          `agent "${ctx.agentId}" may not start agent "${target}" through "*": it holds tools this agent lacks (${beyond.join(', ')}); ` +
            `name "${target}" in subagents.allow_agents to allow that`,
        );
    }
    const id = randomUUID();
    const childSessionId = `agent:${target}${SUBAGENT_MARK}${id}`;
    const reserved = await this.runs.reserve(
      { id, parentSessionId: ctx.sessionId, childSessionId, agentId: target },
      { maxCount: limits.max_per_session, maxCostUsd: limits.max_cost_usd },
    );
    if (!reserved.ok && reserved.count >= limits.max_per_session)
      throw new ToolError(`this session already started ${reserved.count} subagents (limit ${limits.max_per_session})`);
    if (!reserved.ok)
      throw new ToolError(`this session's subagents already spent $${reserved.costUsd.toFixed(4)} (limit $${limits.max_cost_usd})`);

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, limits.timeout);
    const onParentAbort = () => controller.abort();
    signal.addEventListener('abort', onParentAbort, { once: true });
    const started = Date.now();
    const report: SubagentReport = {
      id,
      agentId: target,
      status: 'ok',
      result: '',
      durationMs: 0,
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    };
    try {
      const r = await this.agents.run(
        {
          message: task,
          sessionId: childSessionId,
          createSession: true,
          agentId: target,
          channel: SUBAGENT_CHANNEL,
          endpointId: ctx.sessionId,
          promptMode: 'minimal',
        },
        { signal: controller.signal },
      );
      report.result = r.reply;
      report.usage = r.usage;
    } catch (e) {
      report.status = timedOut ? 'timeout' : controller.signal.aborted ? 'cancelled' : 'error';
      report.result = e instanceof NestclawError || e instanceof Error ? e.message : String(e);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onParentAbort);
    }
    report.durationMs = Date.now() - started;
    await this.runs.finish(id, report.status, report.usage);
    await this.hooks.subagentStop({
      sessionId: ctx.sessionId,
      agentId: ctx.agentId,
      childSessionId,
      childAgentId: target,
      status: report.status,
      durationMs: report.durationMs,
    });
    return JSON.stringify({ subagent: report });
  }
}
