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
});

const modelSchema = z.looseObject({
  provider: z.string().default('openai-compatible'),
  model: z.string().min(1),
  base_url: z.url().optional(),
  api_key: z.string().optional(),
  price: priceSchema.optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
});

const agentSchema = z.object({
  model: z.string().optional(),
  system_prompt: z.string().optional(),
  max_iterations: z.number().int().min(1).max(100).default(8),
  history_limit: z.number().int().min(0).max(10_000).default(40),
  tools: z.array(z.string()).default(['current_time']),
});

export const configSchema = z.object({
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
    })
    .prefault({}),
  agents: z.record(z.string(), agentSchema).prefault({ default: {} }),
  prompts: z
    .object({
      system: z.string().default('You are nestclaw, a helpful personal assistant. Answer concisely. Use tools only when they help.'),
    })
    .prefault({}),
  log: z.object({ level: z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log') }).prefault({}),
});

export type NestclawConfig = z.output<typeof configSchema>;
export type ModelConfig = NestclawConfig['models'][string];
export type AgentConfig = NestclawConfig['agents'][string];

/** Sections re-read on file change and pushed to Reconfigurable components. */
export const HOT_SECTIONS = ['models', 'providers', 'agents', 'prompts', 'log'] as const;
export type HotSection = (typeof HOT_SECTIONS)[number];
/** Sections that only take effect after a restart. */
export const STATIC_SECTIONS = ['server', 'database'] as const;
