import { z } from 'zod';
import { parseDuration } from '@nestclaw/common';

const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    return parseDuration(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});

/** USD per 1M tokens. */
const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
  /** Prompt-cache writes (Anthropic bills them above the input price). */
  cache_write: z.number().nonnegative().optional(),
});

/** Client-side rate limits; the ReliableProvider routes elsewhere before a 429 happens. */
const limitsSchema = z.object({
  rpm: z.number().int().positive().optional(),
  tpm: z.number().int().positive().optional(),
});

const modelSchema = z.looseObject({
  provider: z.string().default('openai-compatible'),
  model: z.string().min(1),
  base_url: z.url().optional(),
  api_key: z.string().optional(),
  price: priceSchema.optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** chat models join the fallback chain; embedding models serve the memory index. */
  kind: z.enum(['chat', 'embedding']).default('chat'),
  limits: limitsSchema.optional(),
  /** Extra HTTP headers sent with every request (e.g. OpenRouter's HTTP-Referer). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Embedding size to request, where the backend supports choosing it. */
  dimensions: z.number().int().positive().optional(),
});

const agentSchema = z.object({
  model: z.string().optional(),
  /** This agent's own fallback chain (else `providers.fallback`). */
  fallback: z.array(z.string()).optional(),
  system_prompt: z.string().optional(),
  max_iterations: z.number().int().min(1).max(100).default(8),
  history_limit: z.number().int().min(0).max(10_000).default(40),
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
      'memory_store',
      'memory_recall',
      'memory_forget',
    ]),
  /** Where this agent's files live: one per session, per agent (default) or one shared by all. */
  workspace: z
    .object({
      scope: z.enum(['session', 'agent', 'shared']).default('agent'),
      access: z.enum(['rw', 'ro', 'none']).default('rw'),
    })
    .prefault({}),
});

const searchBackendSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('searxng'), url: z.url() }),
  z.object({ kind: z.literal('brave'), api_key: z.string().min(1), url: z.url().default('https://api.search.brave.com') }),
  z.object({ kind: z.literal('tavily'), api_key: z.string().min(1), url: z.url().default('https://api.tavily.com') }),
]);

const toolsSchema = z
  .object({
    /** auto picks the strongest available executor: docker, then bubblewrap, then native. */
    sandbox: z.enum(['auto', 'docker', 'bubblewrap', 'native']).default('auto'),
    /** When no real sandbox (docker or bubblewrap) is available, disable shell and file tools. */
    require_sandbox: z.boolean().default(false),
    exec: z
      .object({
        security: z.enum(['deny', 'allowlist', 'full']).default('allowlist'),
        /** Programs allowed in allowlist mode on top of the default safe bins. */
        allow: z.array(z.string().regex(/^[A-Za-z0-9._+-]+$/)).default([]),
        timeout: duration.default(30_000),
        max_output_bytes: z.number().int().positive().default(65_536),
        /** Let shell commands reach the network (off: no network namespace at all). */
        network: z.boolean().default(false),
      })
      .prefault({}),
    limits: z
      .object({
        memory_mb: z.number().int().min(16).default(256),
        pids: z.number().int().min(4).default(64),
        cpus: z.number().positive().default(1),
      })
      .prefault({}),
    docker: z
      .object({
        image: z.string().min(1).default('debian:bookworm-slim'),
        socket: z.string().optional(),
      })
      .prefault({}),
    approval: z
      .object({
        required: z.array(z.string()).default(['shell', 'file_write', 'http_request']),
        /** http_request with these methods never needs approval. */
        safe_http_methods: z.array(z.string()).default(['GET', 'HEAD']),
        timeout: duration.default(600_000),
      })
      .prefault({}),
    http: z
      .object({
        /** Hosts http_request may reach even when they resolve to private addresses. */
        allow_hosts: z.array(z.string()).default([]),
        timeout: duration.default(20_000),
        max_redirects: z.number().int().min(0).max(10).default(5),
      })
      .prefault({}),
    search: z
      .object({
        backend: searchBackendSchema.optional(),
        timeout: duration.default(15_000),
      })
      .prefault({}),
    hooks: z
      .object({
        /** PreToolUse rules: refuse a call whose input (as JSON) matches the pattern (a regular expression). */
        block: z.array(z.object({ tool: z.string().default('*'), pattern: z.string(), reason: z.string().optional() })).default([]),
        /** PostToolUse rules: replace matches in tool output with [redacted]. */
        redact: z.array(z.object({ tool: z.string().default('*'), pattern: z.string() })).default([]),
      })
      .prefault({}),
  })
  .prefault({});

const idList = z.array(z.union([z.string(), z.number()]).transform(String)).default([]);

/** One chat platform (issue 5). Strangers are refused unless paired; groups need the allowlist and a mention. */
const channelSchema = z.object({
  enabled: z.boolean().default(false),
  token: z.string().optional(),
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

const rateSchema = z.object({ limit: z.number().int().positive(), window: duration });

const bindingSchema = z.object({
  agent: z.string().min(1),
  match: z
    .object({
      channel: z.string().optional(),
      account: z.string().optional(),
      peer: z.object({ kind: z.enum(['dm', 'group', 'channel']), id: z.union([z.string(), z.number()]).transform(String) }).optional(),
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
        vector_weight: z.number().min(0).default(1),
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
  .object({
    server: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(3000),
        /** Largest accepted request body in bytes. */
        body_limit: z.number().int().positive().default(1_048_576),
      })
      .prefault({}),
    database: z
      .object({
        url: z.string().min(1).optional(),
        pool_size: z.number().int().min(1).max(100).default(10),
        /**
         * PostgreSQL `synchronous_commit` for nestclaw's connections. "off" (default) makes a commit
         * return before the WAL reaches disk: a gateway crash loses nothing, a crash of the database
         * server or the machine may lose the last fraction of a second of chat. "on" waits for the
         * disk on every write (about 3 ms per commit on the reference machine).
         */
        synchronous_commit: z.enum(['on', 'off']).default('off'),
      })
      .prefault({}),
    models: z.record(z.string(), modelSchema).default({}),
    providers: z
      .object({
        primary: z.string().optional(),
        fallback: z.array(z.string()).default([]),
        timeout_budget: duration.default(120_000),
        /** Cap on one model's share of the budget; unset = the budget split evenly over the models left. */
        attempt_timeout: duration.optional(),
        retry: z
          .object({
            max_attempts: z.number().int().min(1).max(10).default(3),
            base_delay: duration.default(500),
            max_delay: duration.default(8_000),
          })
          .prefault({}),
        circuit_breaker: z
          .object({
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
      .object({
        system: z.string().default('You are nestclaw, a helpful personal assistant. Answer concisely. Use tools only when they help.'),
      })
      .prefault({}),
    tools: toolsSchema,
    log: z.object({ level: z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log') }).prefault({}),
    channels: z
      .object({
        command_prefix: z.string().min(1).max(3).default('/'),
        telegram: channelSchema.prefault({}),
        discord: channelSchema.prefault({}),
      })
      .prefault({}),
    session: z
      .object({
        dm_scope: z.enum(['main', 'per-peer', 'per-channel-peer']).default('per-channel-peer'),
        /** person → ["telegram:111", "discord:222"]: one person's DMs share a session across platforms. */
        identity_links: z.record(z.string(), z.array(z.string())).default({}),
      })
      .prefault({}),
    bindings: z.array(bindingSchema).default([]),
    memory: memorySchema,
    security: z
      .object({
        rate_limit: z
          .object({
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
export const HOT_SECTIONS = ['models', 'providers', 'agents', 'prompts', 'log'] as const;
export type HotSection = (typeof HOT_SECTIONS)[number];
/**
 * Sections that only take effect after a restart. `channels`, `session`, `bindings`, `security` and
 * `tools` hold allowlists and limits: changing them at runtime must not bypass confirmation, so a restart
 * (by the owner) applies them.
 */
export const STATIC_SECTIONS = ['server', 'database', 'channels', 'session', 'bindings', 'security', 'tools', 'memory'] as const;
/** Static sections whose security-sensitive keys (allowlists, approvers, rate limits) also apply after the owner confirms a code. */
export const CONFIRMABLE_SECTIONS: readonly string[] = ['channels', 'security'];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

/** Nest log levels enabled by `log.level` (that level and every more severe one). */
export function logLevelsFor(level: NestclawConfig['log']['level']): (typeof LOG_LEVELS)[number][] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1);
}
