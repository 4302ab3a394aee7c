import { Logger } from '@nestjs/common';
import { createRequire } from 'node:module';
import type { ChannelAdapter } from '@nestclaw/channel';
import type { ModelConfig } from '@nestclaw/config';
import type { MemorySearchStoreDefinition } from '@nestclaw/memory';
import { ToolError, type Tool } from '@nestclaw/tool';
import type { DiscoveredPlugin } from '../discovery/plugin.discovery';
import { declaredMemoryStores, type PluginManifest } from '../manifest/plugin-manifest.schema';
import { PluginTool } from '../plugin-tool';
import type { PluginApi, PluginProviderDefinition, PluginToolDefinition } from './plugin-api';
import { PluginModelProvider } from './plugin-model.provider';

/** Longest `register(api)` may take: a plugin that hangs there must not hold up the gateway's start. */
const REGISTER_TIMEOUT_MS = 10_000;

/** Where a trusted plugin's contributions go: the ports the built-ins use. */
export interface TrustedPorts {
  setTools(plugin: string, tools: readonly Tool[]): void;
  toolOwner(tool: string): string | undefined;
  /** The plugin that already added a provider kind, if any. */
  providerOwner(kind: string): string | undefined;
  registerProviderKind(plugin: string, kind: string, create: (cfg: ModelConfig) => PluginModelProvider): void;
  unregisterProviderKind(kind: string): void;
  registerChannel?(adapter: ChannelAdapter): void;
  /** Throws when the id is taken; absent where memory does not run (then registering fails). */
  registerMemoryStore?(plugin: string, version: string, store: MemorySearchStoreDefinition): void;
  unregisterMemoryStore?(id: string): void;
}

/** What a loaded trusted plugin added (for the status line and for unloading). */
export interface TrustedContributions {
  tools: string[];
  providers: string[];
  channels: string[];
  memoryStores: string[];
}

/**
 * Loads a trusted plugin in-process: requires its CommonJS entry and calls `register(api)`. Only
 * what the manifest declared may be registered; a plugin that throws, hangs or registers anything
 * undeclared is unloaded again (its tools and providers removed) and the error is its status.
 */
export async function loadTrustedPlugin(plugin: DiscoveredPlugin, ports: TrustedPorts): Promise<TrustedContributions> {
  const manifest = plugin.manifest!;
  const logger = new Logger(`Plugin ${manifest.name}`);
  const done: TrustedContributions = { tools: [], providers: [], channels: [], memoryStores: [] };
  const tools: Tool[] = [];
  let open = true;
  const api: PluginApi = {
    name: manifest.name,
    version: manifest.version,
    config: Object.freeze({ ...plugin.config }),
    logger: { log: (m) => logger.log(String(m)), warn: (m) => logger.warn(String(m)), error: (m) => logger.error(String(m)) },
    registerTool: (def) => {
      checkOpen(open);
      tools.push(toolOf(manifest, def, ports));
      done.tools.push(def.name);
    },
    registerProvider: (def) => {
      checkOpen(open);
      const kind = providerKind(manifest, def);
      const owner = ports.providerOwner(kind);
      if (owner && owner !== manifest.name) throw new Error(`provider "${def.id}" is already added by plugin ${owner}`);
      ports.registerProviderKind(manifest.name, kind, (cfg) => new PluginModelProvider(kind, cfg.model, def.create(settingsOf(cfg))));
      done.providers.push(kind);
    },
    registerChannel: (adapter) => {
      checkOpen(open);
      if (!manifest.contributes.channels.includes(adapter?.id)) {
        throw new Error(`channel "${adapter?.id}" is not declared in the manifest's contributes.channels`);
      }
      if (!ports.registerChannel) throw new Error('channels cannot be added here (no channel registry in this process)');
      ports.registerChannel(adapter);
      done.channels.push(adapter.id);
    },
    registerMemoryStore: (def) => {
      checkOpen(open);
      if (!def || typeof def.create !== 'function') throw new Error('a memory store needs an id and a create function');
      if (!declaredMemoryStores(manifest).includes(def.id)) {
        throw new Error(`memory store "${def.id}" is not declared in the manifest's contributes.memoryStore`);
      }
      if (!ports.registerMemoryStore) throw new Error('memory stores cannot be added here (memory does not run in this process)');
      ports.registerMemoryStore(manifest.name, manifest.version, def);
      done.memoryStores.push(def.id);
    },
  };
  try {
    const mod = (plugin.register ? { register: plugin.register } : createRequire(plugin.entryPath!)(plugin.entryPath!)) as {
      register?: unknown;
      default?: { register?: unknown };
    };
    const register = typeof mod.register === 'function' ? mod.register : mod.default?.register;
    if (typeof register !== 'function') throw new Error(`${manifest.entry} exports no register(api) function`);
    await withTimeout(Promise.resolve((register as (api: PluginApi) => unknown)(api)), REGISTER_TIMEOUT_MS);
    open = false;
    ports.setTools(manifest.name, tools);
    return done;
  } catch (e) {
    open = false;
    for (const kind of done.providers) ports.unregisterProviderKind(kind);
    for (const id of done.memoryStores) ports.unregisterMemoryStore?.(id);
    ports.setTools(manifest.name, []);
    // Channels registered before the failure stay: the channel registry has no way to remove one.
    throw e;
  }
}

function checkOpen(open: boolean): void {
  if (!open) throw new Error('register(api) has returned: nothing more can be registered');
}

function toolOf(manifest: PluginManifest, def: PluginToolDefinition, ports: TrustedPorts): Tool {
  if (!def || typeof def.execute !== 'function') throw new Error('a tool needs a name and an execute function');
  if (!manifest.contributes.tools.includes(def.name)) {
    throw new Error(`tool "${def.name}" is not declared in the manifest's contributes.tools`);
  }
  const owner = ports.toolOwner(def.name);
  if (owner && owner !== manifest.name) throw new Error(`tool "${def.name}" is already added by plugin ${owner}`);
  return new PluginTool(
    {
      plugin: manifest.name,
      name: def.name,
      description: String(def.description ?? ''),
      inputSchema: def.inputSchema,
      requiresApproval: def.requiresApproval,
      sideEffects: def.sideEffects,
    },
    async (input, ctx, signal) => {
      try {
        const out = await def.execute(input, {
          sessionId: ctx.sessionId,
          turnId: ctx.turnId,
          agentId: ctx.agentId,
          channel: ctx.channel,
          signal,
        });
        return typeof out === 'string' ? out : JSON.stringify(out ?? '');
      } catch (e) {
        if (e instanceof ToolError) throw e;
        throw new ToolError(`plugin ${manifest.name} failed on ${def.name}: ${(e as Error)?.message ?? String(e)}`);
      }
    },
  );
}

function providerKind(manifest: PluginManifest, def: PluginProviderDefinition): string {
  if (!def || typeof def.create !== 'function') throw new Error('a provider needs an id and a create function');
  if (!manifest.contributes.providers.includes(def.id)) {
    throw new Error(`provider "${def.id}" is not declared in the manifest's contributes.providers`);
  }
  return `plugin:${def.id}`;
}

function settingsOf(cfg: ModelConfig) {
  return {
    model: cfg.model,
    baseUrl: cfg.base_url,
    apiKey: cfg.api_key,
    temperature: cfg.temperature,
    maxTokens: cfg.max_tokens,
    headers: cfg.headers,
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`register(api) did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
