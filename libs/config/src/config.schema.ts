import { z } from 'zod';
import { parseDuration } from '@nestclaw/common';

/**
 * Marks a value as a secret, once, here in the schema: `redactConfig` and `secretValues`
 * (config.secrets.ts) find every marked value, so logs, /doctor and config dumps never show it.
 */
const secret = <T extends z.ZodType>(schema: T): T => schema.meta({ secret: true }) as T;

const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    return parseDuration(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});

/** USD per 1M tokens. */
const priceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
  /** Prompt-cache writes (Anthropic bills them above the input price). */
  cache_write: z.number().nonnegative().optional(),
});

/** Client-side rate limits; the ReliableProvider routes elsewhere before a 429 happens. */
const limitsSchema = z.strictObject({
  rpm: z.number().int().positive().optional(),
  tpm: z.number().int().positive().optional(),
});

const modelSchema = z.strictObject({
  provider: z.string().default('openai-compatible'),
  model: z.string().min(1),
  base_url: z.url().optional(),
  api_key: secret(z.string()).optional(),
  price: priceSchema.optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** chat models join the fallback chain; embedding models serve the memory index. */
  kind: z.enum(['chat', 'embedding']).default('chat'),
  limits: limitsSchema.optional(),
  /** Extra HTTP headers sent with every request (e.g. OpenRouter's HTTP-Referer). */
  headers: z.record(z.string(), secret(z.string())).optional(),
  /** Embedding size to request, where the backend supports choosing it. */
  dimensions: z.number().int().positive().optional(),
  /** Tokens the model accepts per request (prompt + answer); drives compaction. Unset: 128k. */
  context_window: z.number().int().min(512).optional(),
});

const agentSchema = z.strictObject({
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
      interval: duration.default(1_800_000),
      /** No heartbeats between these local times (HH:MM in the agent's timezone), e.g. 23:00–07:00. */
      quiet_hours: z.strictObject({ start: z.string().regex(/^\d{2}:\d{2}$/), end: z.string().regex(/^\d{2}:\d{2}$/) }).optional(),
      /** Tokens (in + out) heartbeats may spend per day; then they stop until the next day. */
      daily_token_cap: z.number().int().min(0).default(200_000),
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

const searchBackendSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('searxng'), url: z.url() }),
  z.strictObject({ kind: z.literal('brave'), api_key: secret(z.string().min(1)), url: z.url().default('https://api.search.brave.com') }),
  z.strictObject({ kind: z.literal('tavily'), api_key: secret(z.string().min(1)), url: z.url().default('https://api.tavily.com') }),
]);

/** An owner-written spec for a program the exec policy should admit (see docs/configuration.md). */
const programSpecSchema = z.strictObject({
  options: z
    .array(
      z
        .strictObject({
          short: z
            .string()
            .regex(/^[A-Za-z0-9]$/)
            .optional(),
          long: z
            .string()
            .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/)
            .optional(),
          /** none: a flag; text: takes a value that is data; path: takes a file name (kept inside the workspace). */
          value: z.enum(['none', 'text', 'path']).default('none'),
        })
        .refine((o) => o.short || o.long, { message: 'an option needs short or long' }),
    )
    .default([]),
  /** inputs: every operand is a file to read; text: none is; text-then-inputs: the first is data (a pattern). */
  operands: z.enum(['inputs', 'text', 'text-then-inputs']).default('inputs'),
  max_operands: z.number().int().min(0).optional(),
});

/** What the owner must write to run commands on the host without a sandbox. */
export const NATIVE_ACKNOWLEDGEMENT = 'commands run on the host without a sandbox';

const toolsSchema = z
  .strictObject({
    /**
     * auto picks the strongest available sandbox: docker, then bubblewrap. With none, the shell tool
     * is not offered (file tools keep working through their own path checks). native runs commands
     * on the host: only with `native.acknowledge` set to NATIVE_ACKNOWLEDGEMENT.
     */
    sandbox: z.enum(['auto', 'docker', 'bubblewrap', 'native']).default('auto'),
    /** When no real sandbox (docker or bubblewrap) is available, disable the file tools too. */
    require_sandbox: z.boolean().default(false),
    native: z
      .object({
        /** Must equal "commands run on the host without a sandbox" for tools.sandbox: native. */
        acknowledge: z.string().optional(),
      })
      .prefault({}),
    exec: z
      .strictObject({
        security: z.enum(['deny', 'allowlist', 'full']).default('allowlist'),
        /** Programs without a spec, allowed on top of the default ones: each call needs approval and says so. */
        allow: z.array(z.string().regex(/^[A-Za-z0-9._+-]+$/)).default([]),
        /** Programs the owner adds with a spec of their options and operands: checked like the defaults. */
        programs: z.record(z.string().regex(/^[A-Za-z0-9._+-]+$/), programSpecSchema).default({}),
        timeout: duration.default(30_000),
        max_output_bytes: z.number().int().positive().default(65_536),
        /** Let shell commands reach the network (off: no network namespace at all). */
        network: z.boolean().default(false),
      })
      .prefault({}),
    limits: z
      .strictObject({
        memory_mb: z.number().int().min(16).default(256),
        pids: z.number().int().min(4).default(64),
        cpus: z.number().positive().default(1),
        /** Disk a workspace may use; a run that grows it beyond this is stopped. */
        workspace_mb: z.number().int().min(1).default(1024),
      })
      .prefault({}),
    bubblewrap: z
      .object({
        /** The bwrap binary (apt-get install bubblewrap puts it here). */
        path: z.string().min(1).default('/usr/bin/bwrap'),
      })
      .prefault({}),
    docker: z
      .strictObject({
        image: z.string().min(1).default('debian:bookworm-slim'),
        socket: z.string().optional(),
      })
      .prefault({}),
    approval: z
      .strictObject({
        required: z.array(z.string()).default(['shell', 'file_write', 'http_request']),
        /** http_request with these methods never needs approval. */
        safe_http_methods: z.array(z.string()).default(['GET', 'HEAD']),
        timeout: duration.default(600_000),
      })
      .prefault({}),
    http: z
      .strictObject({
        /** Hosts http_request may reach even when they resolve to private addresses. */
        allow_hosts: z.array(z.string()).default([]),
        timeout: duration.default(20_000),
        max_redirects: z.number().int().min(0).max(10).default(5),
      })
      .prefault({}),
    search: z
      .strictObject({
        backend: searchBackendSchema.optional(),
        timeout: duration.default(15_000),
      })
      .prefault({}),
    hooks: z
      .strictObject({
        /** PreToolUse rules: refuse a call whose input (as JSON) matches the pattern (a regular expression). */
        block: z.array(z.strictObject({ tool: z.string().default('*'), pattern: z.string(), reason: z.string().optional() })).default([]),
        /** PostToolUse rules: replace matches in tool output with [redacted]. */
        redact: z.array(z.strictObject({ tool: z.string().default('*'), pattern: z.string() })).default([]),
      })
      .prefault({}),
  })
  .prefault({})
  .superRefine((t, ctx) => {
    if (t.sandbox !== 'native') return;
    if (t.native.acknowledge !== NATIVE_ACKNOWLEDGEMENT)
      ctx.addIssue({
        code: 'custom',
        path: ['native', 'acknowledge'],
        message: `tools.sandbox: native runs commands on the host; set tools.native.acknowledge to "${NATIVE_ACKNOWLEDGEMENT}" to accept that, or install bubblewrap / start Docker`,
      });
    if (!t.exec.network)
      ctx.addIssue({
        code: 'custom',
        path: ['exec', 'network'],
        message:
          'tools.exec.network: false cannot be enforced by the native executor (it has no network namespace); set it to true to accept that, or use bubblewrap or Docker',
      });
  });

const idList = z.array(z.union([z.string(), z.number()]).transform(String)).default([]);

/** One chat platform (issue 5). Strangers are refused unless paired; groups need the allowlist and a mention. */
const channelSchema = z.strictObject({
  enabled: z.boolean().default(false),
  token: secret(z.string()).optional(),
  /** Another Bot API / REST root (self-hosted Telegram Bot API server; tests use a local fake). */
  api_root: z.string().optional(),
  allow_from: idList,
  group_policy: z.enum(['allowlist', 'open', 'disabled']).default('allowlist'),
  require_mention: z.boolean().default(true),
  /** Who may press approval buttons and use /approve, /deny (default: allow_from from config; paired senders may chat, not approve). */
  approvers: z.array(z.union([z.string(), z.number()]).transform(String)).optional(),
  /** Largest media file accepted; bigger ones are refused with a reply. */
  max_file_bytes: z
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** How often a streamed reply's preview message is edited. */
  stream_edit_interval: duration.default(1000),
  /** Long-poll timeout (Telegram getUpdates), seconds. */
  poll_timeout: z.number().int().min(0).max(50).default(25),
});
export type ChannelConfig = z.output<typeof channelSchema>;

const rateSchema = z.strictObject({ limit: z.number().int().positive(), window: duration });

const bindingSchema = z.strictObject({
  agent: z.string().min(1),
  match: z
    .strictObject({
      channel: z.string().optional(),
      account: z.string().optional(),
      peer: z
        .strictObject({ kind: z.enum(['dm', 'group', 'channel']), id: z.union([z.string(), z.number()]).transform(String) })
        .optional(),
      guild: z.union([z.string(), z.number()]).transform(String).optional(),
      team: z.string().optional(),
    })
    .prefault({}),
});
export type BindingConfig = z.output<typeof bindingSchema>;

/** Long-term memory (issue 11): Postgres is the truth, the on-disk hybrid index is derived from it. */
const memorySchema = z
  .object({
    enabled: z.boolean().default(true),
    /** The derived index's directory (default `$NESTCLAW_HOME/memory-index`); deleting it triggers a rebuild. */
    index_dir: z.string().optional(),
    /** A `kind: embedding` model; unset = the first one configured; none = keyword-only. */
    embedding_model: z.string().optional(),
    /** Budget of the embedding call made while recalling; past it the query runs keyword-only. */
    embedding_timeout: duration.default(200),
    recall: z
      .object({
        /** Memories put into a turn's prompt, at most. */
        top_k: z.number().int().min(1).max(50).default(5),
        /** Token budget of the recalled-memories prompt section. */
        max_tokens: z.number().int().min(50).max(8000).default(800),
        /** The whole recall inside a turn; on timeout the turn goes on without memories. */
        timeout: duration.default(150),
        mode: z.enum(['keyword', 'vector', 'hybrid']).default('hybrid'),
      })
      .prefault({}),
    fusion: z
      .object({
        /** Reciprocal Rank Fusion constant: score = Σ weight / (k + rank). */
        k: z.number().positive().default(60),
        keyword_weight: z.number().min(0).default(1),
        /** 0.5: keyword ranks lead; with equal weights hybrid MRR fell below keyword-only at 100k chunks (ADR 0011). */
        vector_weight: z.number().min(0).default(0.5),
        /** Candidates taken from each leg before fusing. */
        candidates: z.number().int().min(1).max(1000).default(50),
      })
      .prefault({}),
    chunk: z
      .object({
        tokens: z.number().int().min(32).max(4000).default(400),
        overlap: z.number().int().min(0).max(1000).default(80),
      })
      .prefault({}),
    worker: z
      .object({
        /** false: this process never drains index_queue (another process does; tests hold the index back with it). */
        enabled: z.boolean().default(true),
        interval: duration.default(200),
        batch: z.number().int().min(1).max(10_000).default(512),
        /** Failures after which a queue entry is parked (shown by /doctor) instead of retried. */
        max_attempts: z.number().int().min(1).max(100).default(5),
        backoff_base: duration.default(1000),
        backoff_max: duration.default(300_000),
      })
      .prefault({}),
    files: z
      .object({
        /** Index MEMORY.md and memory/*.md in each agent's workspace. */
        enabled: z.boolean().default(true),
        /** Whose memories the workspace files are: the workspace belongs to the operator. */
        scope: z.string().min(1).default('owner'),
        scan_interval: duration.default(5_000),
      })
      .prefault({}),
    /** Remember finished turns (user + assistant text), so earlier conversations can be recalled. */
    transcripts: z.boolean().default(true),
  })
  .prefault({});
export type MemoryConfig = z.output<typeof memorySchema>;

export const configSchema = z
  .strictObject({
    server: z
      .strictObject({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(3000),
        /** Largest accepted request body in bytes. */
        body_limit: z.number().int().positive().default(1_048_576),
        /** WebSocket keep-alive: a ping this often; a client that has not answered the last one is dropped. */
        ws_ping_interval: duration.default(30_000),
      })
      .prefault({}),
    database: z
      .strictObject({
        /** May carry a password: secret as a whole. */
        url: secret(z.string().min(1)).optional(),
        pool_size: z.number().int().min(1).max(100).default(10),
        /**
         * PostgreSQL `synchronous_commit` for nestclaw's connections. "off" (default) makes a commit
         * return before the WAL reaches disk: a gateway crash loses nothing, a crash of the database
         * server or the machine may lose the last fraction of a second of chat. "on" waits for the
         * disk on every write (about 3 ms per commit on the reference machine).
         */
        synchronous_commit: z.enum(['on', 'off']).default('off'),
        /**
         * Longest wait for any one database operation (getting a connection, or one query): past it
         * the request fails with 503 database_unavailable instead of hanging through a network
         * partition. Also PostgreSQL's statement_timeout on a real server.
         */
        query_timeout: duration.default(5_000),
        /**
         * Without `url`: which embedded PostgreSQL runs the data. auto = the real PostgreSQL binaries
         * shipped on npm where they can run, else PGlite (WebAssembly, heavier); see docs/adr/0006.
         */
        embedded_engine: z.enum(['auto', 'native', 'pglite']).default('auto'),
      })
      .prefault({}),
    models: z.record(z.string(), modelSchema).default({}),
    providers: z
      .strictObject({
        primary: z.string().optional(),
        fallback: z.array(z.string()).default([]),
        timeout_budget: duration.default(120_000),
        /** Cap on one model's share of the budget; unset = the budget split evenly over the models left. */
        attempt_timeout: duration.optional(),
        retry: z
          .strictObject({
            max_attempts: z.number().int().min(1).max(10).default(3),
            base_delay: duration.default(500),
            max_delay: duration.default(8_000),
          })
          .prefault({}),
        circuit_breaker: z
          .strictObject({
            threshold: z.number().int().min(1).default(3),
            reset_interval: duration.default(60_000),
          })
          .prefault({}),
        /** How long a non-streaming answer is kept to be replayed for the same request (0 = off). */
        idempotency_ttl: duration.default(600_000),
      })
      .prefault({}),
    agents: z.record(z.string(), agentSchema).prefault({ default: {} }),
    prompts: z
      .strictObject({
        system: z.string().default('You are nestclaw, a helpful personal assistant. Answer concisely. Use tools only when they help.'),
      })
      .prefault({}),
    tools: toolsSchema,
    log: z.strictObject({ level: z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log') }).prefault({}),
    channels: z
      .strictObject({
        command_prefix: z.string().min(1).max(3).default('/'),
        telegram: channelSchema.prefault({}),
        discord: channelSchema.prefault({}),
      })
      .prefault({}),
    session: z
      .strictObject({
        dm_scope: z.enum(['main', 'per-peer', 'per-channel-peer']).default('per-channel-peer'),
        /** person → ["telegram:111", "discord:222"]: one person's DMs share a session across platforms. */
        identity_links: z.record(z.string(), z.array(z.string())).default({}),
      })
      .prefault({}),
    bindings: z.array(bindingSchema).default([]),
    observability: z
      .strictObject({
        metrics: z
          .strictObject({
            /** Serve /metrics on the gateway port (token with the `metrics` scope, or the owner token). */
            enabled: z.boolean().default(true),
            /** Also serve /metrics on a separate listener (still token-protected), e.g. for a sidecar. */
            listener: z.strictObject({ host: z.string().min(1).default('127.0.0.1'), port: z.number().int().min(0).max(65535) }).optional(),
          })
          .prefault({}),
        tracing: z
          .strictObject({
            /** Record prompts and replies on spans (gen_ai.input/output.messages). Off: no message content leaves the process. */
            capture_content: z.boolean().default(false),
          })
          .prefault({}),
        logs: z
          .strictObject({
            /** auto: pretty on a terminal, JSON otherwise. */
            format: z.enum(['auto', 'json', 'pretty']).default('auto'),
            /** Extra object paths to redact in structured log fields (pino redact syntax). */
            redact: z.array(z.string()).default([]),
          })
          .prefault({}),
      })
      .prefault({}),
    /** How long rows of tables that grow without bound are kept (days; 0 = keep forever). Swept hourly. */
    retention: z
      .strictObject({
        enabled: z.boolean().default(true),
        conversation_log_days: z.number().int().min(0).default(365),
        inbound_messages_days: z.number().int().min(0).default(30),
        outbound_messages_days: z.number().int().min(0).default(30),
        audit_log_days: z.number().int().min(0).default(365),
        llm_calls_days: z.number().int().min(0).default(400),
        security_events_days: z.number().int().min(0).default(180),
        /** Rows deleted per statement, so a sweep never holds long locks. */
        batch_size: z.number().int().min(100).max(100_000).default(5000),
      })
      .prefault({}),
    /** Scheduled jobs (issue 13): claimed from Postgres so each due time runs once across processes. */
    scheduler: z
      .strictObject({
        enabled: z.boolean().default(true),
        /** How often due jobs are looked for. */
        tick: duration.default(1_000),
        /** A job missed while the gateway was down still runs at start-up if it is at most this late; else it is recorded as missed. */
        grace: duration.default(300_000),
        /** Most jobs started per tick. */
        batch: z.number().int().min(1).max(100).default(10),
      })
      .prefault({}),
    memory: memorySchema,
    security: z
      .strictObject({
        rate_limit: z
          .strictObject({
            per_sender: rateSchema.prefault({ limit: 20, window: 60_000 }),
            per_token: rateSchema.prefault({ limit: 120, window: 60_000 }),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .superRefine((c, ctx) => {
    // A binding to an agent that does not exist would only fail when a message arrives.
    c.bindings.forEach((b, i) => {
      if (b.agent !== 'default' && !c.agents[b.agent]) {
        ctx.addIssue({
          code: 'custom',
          path: ['bindings', i, 'agent'],
          message: `unknown agent "${b.agent}" (configured: ${Object.keys(c.agents).join(', ')})`,
        });
      }
    });
  })
  .transform((c) => (c.agents.default ? c : { ...c, agents: { ...c.agents, default: agentSchema.parse({}) } }));

export type NestclawConfig = z.output<typeof configSchema>;
export type ModelConfig = NestclawConfig['models'][string];
export type AgentConfig = NestclawConfig['agents'][string];
export type ToolsConfig = NestclawConfig['tools'];

/** Sections re-read on file change and pushed to Reconfigurable components. */
export const HOT_SECTIONS = ['models', 'providers', 'agents', 'prompts', 'log', 'retention'] as const;
export type HotSection = (typeof HOT_SECTIONS)[number];
/**
 * Sections that only take effect after a restart. `channels`, `session`, `bindings`, `security` and
 * `tools` hold allowlists and limits: changing them at runtime must not bypass confirmation, so a restart
 * (by the owner) applies them.
 */
export const STATIC_SECTIONS = [
  'server',
  'database',
  'channels',
  'session',
  'bindings',
  'security',
  'tools',
  'scheduler',
  'observability',
  'memory',
] as const;
/** Static sections whose security-sensitive keys (allowlists, approvers, rate limits) also apply after the owner confirms a code. */
export const CONFIRMABLE_SECTIONS: readonly string[] = ['channels', 'security'];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

/** Nest log levels enabled by `log.level` (that level and every more severe one). */
export function logLevelsFor(level: NestclawConfig['log']['level']): (typeof LOG_LEVELS)[number][] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1);
}
