import type { ChannelAdapter } from '@nestclaw/channel';
import type { MemorySearchStoreDefinition } from '@nestclaw/memory';
import type { ChatMessage, ToolCall, ToolDefinition, Usage } from '@nestclaw/provider';

/** What a plugin tool's `execute` is told about the call. */
export interface PluginToolContext {
  sessionId: string;
  turnId: string;
  agentId: string;
  channel?: string;
  /** Aborted when the turn is cancelled or the tool's time is up. */
  signal: AbortSignal;
}

/** A tool a plugin adds; called through the tool registry like every built-in (policy, approval, hooks, audit, output cap). */
export interface PluginToolDefinition {
  /** One of the names the manifest's `contributes.tools` declares. */
  name: string;
  description: string;
  /** JSON Schema of the input object; every call is checked against it before `execute` runs. */
  inputSchema?: Record<string, unknown>;
  /** Every call waits for a human decision, whatever `tools.approval.required` says. */
  requiresApproval?: boolean;
  /** False only for a tool sure to change nothing outside the turn (a crashed turn may then be asked again). */
  sideEffects?: boolean;
  execute(input: Record<string, unknown>, ctx: PluginToolContext): Promise<string> | string;
}

/** The `models.<name>` entry a plugin model is built for (never its other sections). */
export interface PluginModelSettings {
  model: string;
  baseUrl?: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  headers?: Record<string, string>;
}

export interface PluginChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface PluginChatAnswer {
  content: string;
  toolCalls?: ToolCall[];
  usage?: Partial<Usage>;
}

/** One model of a plugin's provider kind: nestclaw wraps it (ReliableProvider: retries, fallback, breaker, ledger). */
export interface PluginModel {
  chat(request: PluginChatRequest): Promise<PluginChatAnswer>;
  /** Whether the backend answers (for /doctor); unset: reachable. */
  probe?(signal: AbortSignal): Promise<boolean>;
}

/** A model provider kind, used in config as `models.<name>.provider: plugin:<id>`. */
export interface PluginProviderDefinition {
  /** One of the ids the manifest's `contributes.providers` declares. */
  id: string;
  create(settings: PluginModelSettings): PluginModel;
}

export interface PluginLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * What a trusted plugin's `register(api)` receives: the same ports the built-ins use. Only what the
 * manifest declared may be registered; anything else throws (and the plugin is listed as failed).
 */
export interface PluginApi {
  readonly name: string;
  readonly version: string;
  /** The plugin's `config` from config.yaml, already checked against its configSchema. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly logger: PluginLogger;
  registerTool(tool: PluginToolDefinition): void;
  registerProvider(provider: PluginProviderDefinition): void;
  /** A channel adapter, registered with the channel registry (inbound dedupe, access policy, delivery). */
  registerChannel(adapter: ChannelAdapter): void;
  /**
   * A memory search store (where chunks are indexed and searched), used when config says
   * `memory.store: plugin:<id>`; its id must be one the manifest's `contributes.memoryStore` declares.
   */
  registerMemoryStore(store: MemorySearchStoreDefinition): void;
}
