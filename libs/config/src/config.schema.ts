import { z } from 'zod';
import { agentSchema, agentsSchema } from './schema/agents.schema';
import { bindingsSchema } from './schema/bindings.schema';
import { channelsSchema } from './schema/channels.schema';
export { BUILT_IN_CHANNELS, isBuiltInChannel, pluginChannelConfig } from './schema/channels.schema';
import { clisSchema } from './schema/clis.schema';
import { databaseSchema } from './schema/database.schema';
import { logSchema } from './schema/log.schema';
import { mcpSchema } from './schema/mcp.schema';
import { memorySchema } from './schema/memory.schema';
import { modelsSchema } from './schema/models.schema';
import { pluginsSchema } from './schema/plugins.schema';
import { observabilitySchema } from './schema/observability.schema';
import { promptsSchema } from './schema/prompts.schema';
import { providersSchema } from './schema/providers.schema';
import { retentionSchema } from './schema/retention.schema';
import { schedulerSchema } from './schema/scheduler.schema';
import { securitySchema } from './schema/security.schema';
import { serverSchema } from './schema/server.schema';
import { sessionSchema } from './schema/session.schema';
import { toolsSchema } from './schema/tools.schema';
import { webhooksSchema } from './schema/webhooks.schema';

export { NATIVE_ACKNOWLEDGEMENT } from './schema/tools.schema';
export { PROVIDER_KINDS } from './schema/provider-kinds';
export type { ChannelConfig, FeishuChannelConfig, PluginChannelAccessConfig, SlackChannelConfig } from './schema/channels.schema';
export type { BindingConfig } from './schema/bindings.schema';
export type { MemoryConfig } from './schema/memory.schema';
export type { CliConfig } from './schema/clis.schema';
export { CLI_KINDS, CLI_MODES } from './schema/clis.schema';
export type { McpServerConfig } from './schema/mcp.schema';
export type { PluginConfigEntry } from './schema/plugins.schema';
export type { WebhookConfig } from './schema/webhooks.schema';
export { PAYLOAD_PLACEHOLDER } from './schema/webhooks.schema';

/**
 * The whole config file: one strict schema per section (libs/config/src/schema/<section>.schema.ts),
 * composed here with the checks that span sections. A new key goes into its section's file.
 */
export const configSchema = z
  .strictObject({
    server: serverSchema,
    database: databaseSchema,
    models: modelsSchema,
    providers: providersSchema,
    agents: agentsSchema,
    prompts: promptsSchema,
    tools: toolsSchema,
    log: logSchema,
    channels: channelsSchema,
    session: sessionSchema,
    bindings: bindingsSchema,
    observability: observabilitySchema,
    retention: retentionSchema,
    scheduler: schedulerSchema,
    memory: memorySchema,
    security: securitySchema,
    clis: clisSchema,
    mcp: mcpSchema,
    webhooks: webhooksSchema,
    plugins: pluginsSchema,
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
    // A hook is refused before its agent is looked up, so a wrong name must fail at boot, not on a delivery.
    for (const [id, hook] of Object.entries(c.webhooks)) {
      if (hook.agent !== 'default' && !c.agents[hook.agent])
        ctx.addIssue({
          code: 'custom',
          path: ['webhooks', id, 'agent'],
          message: `unknown agent "${hook.agent}" (configured: ${Object.keys(c.agents).join(', ')})`,
        });
      if (hook.max_body > c.server.body_limit)
        ctx.addIssue({
          code: 'custom',
          path: ['webhooks', id, 'max_body'],
          message: `${hook.max_body} is larger than server.body_limit (${c.server.body_limit}), which refuses such bodies first`,
        });
    }
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
  'clis',
  'mcp',
  'webhooks',
  'plugins',
] as const;
/** Static sections whose security-sensitive keys (allowlists, approvers, rate limits) also apply after the owner confirms a code. */
export const CONFIRMABLE_SECTIONS: readonly string[] = ['channels', 'security'];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

/** Nest log levels enabled by `log.level` (that level and every more severe one). */
export function logLevelsFor(level: NestclawConfig['log']['level']): (typeof LOG_LEVELS)[number][] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1);
}
