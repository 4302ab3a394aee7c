import { z } from 'zod';
import { duration } from './field-types';

export const agentSchema = z.strictObject({
  model: z.string().optional(),
  /** This agent's own fallback chain (else `providers.fallback`). */
  fallback: z.array(z.string()).optional(),
  system_prompt: z.string().optional(),
  max_iterations: z.number().int().min(1).max(100).default(8),
  /** Most messages sent verbatim; older ones are compacted into summaries, never silently dropped. */
  history_limit: z.number().int().min(0).max(10_000).default(200),
  tools: z
    .array(z.string())
    .default([
      'current_time',
      'shell',
      'file_read',
      'file_write',
      'file_list',
      'http_request',
      'web_search',
      'skill_read',
      'memory_store',
      'memory_recall',
      'memory_forget',
    ]),
  /** full: every prompt layer; minimal: identity, context and tools only (subagents, cheap tasks); none: no system prompt. */
  prompt_mode: z.enum(['full', 'minimal', 'none']).default('full'),
  /** IANA zone for "current time" in the prompt. */
  timezone: z.string().default('UTC'),
  /** Workspace files (AGENTS.md, SOUL.md, …) injected into the prompt, in characters. */
  bootstrap: z
    .strictObject({
      max_file_chars: z.number().int().min(200).default(6_000),
      max_total_chars: z.number().int().min(200).default(16_000),
    })
    .prefault({}),
  compaction: z
    .strictObject({
      /** Compact when the request would exceed this share of the model's context window. */
      share: z.number().min(0.2).max(0.95).default(0.75),
      /** Share of that budget kept as verbatim recent turns. */
      keep_recent_share: z.number().min(0.05).max(0.8).default(0.3),
      /** Model that writes summaries (default: the agent's model). */
      model: z.string().optional(),
    })
    .prefault({}),
  /** The `spawn` tool: child runs of an agent in their own session (add `spawn` to `tools` to offer it). */
  subagents: z
    .strictObject({
      /** Agents this one may start: [] none, ["*"] any, or a list of ids. */
      allow_agents: z.array(z.string().min(1)).default([]),
      /** Subagents one session may start in all. */
      max_per_session: z.number().int().min(1).max(100).default(5),
      /** Longest a subagent may run before it is cancelled. */
      timeout: duration.default(300_000),
      /** Spending (USD) by one session's subagents after which no more are started. */
      max_cost_usd: z.number().nonnegative().default(1),
    })
    .prefault({}),
  /** Reads HEARTBEAT.md on an interval and acts on what it asks (off by default). */
  heartbeat: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** At least a minute, as the scheduler checks each minute (and a zero slot has no time). */
      interval: duration.pipe(z.number().min(60_000, 'heartbeat.interval must be at least 1m')).default(1_800_000),
      /** No heartbeats between these local times (HH:MM in the agent's timezone), e.g. 23:00–07:00. */
      quiet_hours: z.strictObject({ start: z.string().regex(/^\d{2}:\d{2}$/), end: z.string().regex(/^\d{2}:\d{2}$/) }).optional(),
      /** Tokens (in + out) heartbeats may spend per day; then they stop until the next day. */
      daily_token_cap: z.number().int().min(0).default(200_000),
      /** The owner's default chat for heartbeat replies (a reply that says nothing new is never sent). */
      deliver_to: z.strictObject({ channel: z.string().min(1), chat_id: z.string().min(1) }).optional(),
    })
    .prefault({}),
  /** Answers greetings and thanks from templates without a model call. Opt-in. */
  classifier: z
    .strictObject({
      enabled: z.boolean().default(false),
      replies: z
        .strictObject({
          greeting: z.array(z.string().min(1)).min(1).default(['Hi! How can I help?']),
          greeting_zh: z.array(z.string().min(1)).min(1).default(['你好！有什么可以帮你的？']),
          thanks: z.array(z.string().min(1)).min(1).default(["You're welcome!"]),
          thanks_zh: z.array(z.string().min(1)).min(1).default(['不客气！']),
          farewell: z.array(z.string().min(1)).min(1).default(['Bye! Talk soon.']),
          farewell_zh: z.array(z.string().min(1)).min(1).default(['再见！']),
        })
        .prefault({}),
    })
    .prefault({}),
  /** Where this agent's files live: one per session, per agent (default) or one shared by all. */
  workspace: z
    .strictObject({
      scope: z.enum(['session', 'agent', 'shared']).default('agent'),
      access: z.enum(['rw', 'ro', 'none']).default('rw'),
    })
    .prefault({}),
  /** Optional spend budget (USD, UTC day/month, from the llm_calls ledger): warns at `warn_at`, refuses new turns once spent if `enforce`. */
  budget: z
    .object({
      daily_usd: z.number().positive().optional(),
      monthly_usd: z.number().positive().optional(),
      /** Fraction of a budget at which a warning is logged (once per period). */
      warn_at: z.number().min(0).max(1).default(0.8),
      /** Refuse new turns with `budget_exceeded` once a budget is spent (else only warn). */
      enforce: z.boolean().default(true),
    })
    .optional(),
});

export const agentsSchema = z.record(z.string(), agentSchema).prefault({ default: {} });
