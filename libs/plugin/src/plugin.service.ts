import { Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import type { ChannelAdapter } from '@nestclaw/channel';
import { NestclawError } from '@nestclaw/common';
import { ConfigService, isBuiltInChannel } from '@nestclaw/config';
import { DoctorService } from '@nestclaw/doctor';
import { MemorySearchStores } from '@nestclaw/memory';
import { ProviderRegistry } from '@nestclaw/provider';
import { ToolRegistry } from '@nestclaw/tool';
import { withBundledPlugins } from './bundled/bundled-plugins';
import { PluginChoicesStore } from './confirmation/plugin-choices.store';
import { PluginGrantsStore } from './confirmation/plugin-grants.store';
import { DiscoveredPlugin, discoverPlugins } from './discovery/plugin.discovery';
import { asksForPermissions } from './manifest/plugin-manifest.schema';
import { PluginChange, stickyParts } from './plugin-change';
import { pluginChecks } from './plugin.checks';
import { foundStatus, PluginStatus } from './plugin-status';
import { PluginToolSource } from './plugin-tool.source';
import { forgetPluginModules } from './trusted/module-cache';
import { loadTrustedPlugin, TrustedContributions } from './trusted/trusted-plugin.loader';
import { UntrustedPluginHost } from './untrusted/untrusted-plugin.host';

const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CONFIRM_TTL_MS = 10 * 60_000;

interface Pending {
  code: string;
  expiresAt: number;
  wrong: number;
}

/**
 * The plugins (docs/plugins.md): finds them at start, loads the trusted ones the owner marked in
 * this process and starts the untrusted ones as sandboxed children, once the owner confirmed the
 * permissions they ask for. Their tools reach agents through the tool registry, their providers
 * through the provider registry, their channels through the channel registry. A plugin that fails
 * is listed with its reason; the gateway goes on.
 */
@Injectable()
export class PluginService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Plugins');
  private readonly source = new PluginToolSource();
  private plugins: DiscoveredPlugin[] = [];
  private readonly loaded = new Map<string, TrustedContributions>();
  private readonly failures = new Map<string, string>();
  private readonly hosts = new Map<string, UntrustedPluginHost>();
  private readonly pending = new Map<string, Pending>();
  /** Channel adapters trusted plugins added, for the gateway to hand to its channel registry (apps/gateway PluginChannels). */
  private readonly channelAdapters: ChannelAdapter[] = [];
  /** Provider kind (`plugin:<id>`) → the plugin that added it. */
  private readonly providerKinds = new Map<string, string>();
  private grants!: PluginGrantsStore;
  /** One enable/disable/reload at a time: each sees the state the previous one left. */
  private changing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: ConfigService,
    private readonly tools: ToolRegistry,
    private readonly providers: ProviderRegistry,
    private readonly memoryStores: MemorySearchStores,
    @Optional() private readonly doctor?: DoctorService,
  ) {}

  /** The channel adapters trusted plugins added (read once, after every module's init). */
  contributedChannels(): readonly ChannelAdapter[] {
    return this.channelAdapters;
  }

  async onModuleInit(): Promise<void> {
    const home = this.config.home;
    this.grants = PluginGrantsStore.inHome(home);
    this.plugins = withBundledPlugins(this.config.get(), discoverPlugins(home, this.config.get().plugins));
    this.doctor?.addChecks(() => pluginChecks(this.status()));
    // Added even when empty: a plugin installed later is picked up without a restart (reload).
    this.tools.addSource(this.source);
    for (const p of this.plugins) {
      if (p.error) this.logger.error(`plugin ${p.name} is not usable: ${p.error}`);
      if (p.error || !p.enabled || !p.manifest) continue;
      if (p.manifest.track === 'trusted') await this.loadTrusted(p);
      else this.startUntrusted(p);
    }
  }

  onApplicationShutdown(): void {
    for (const host of this.hosts.values()) host.stop();
  }

  status(): PluginStatus[] {
    return this.plugins.map((p) => {
      const s = foundStatus(p);
      if (s.state !== 'found') return s;
      const failure = this.failures.get(p.name);
      if (failure) return { ...s, state: 'failed', error: failure };
      const loaded = this.loaded.get(p.name);
      if (loaded) return { ...s, state: 'loaded', tools: loaded.tools };
      const host = this.hosts.get(p.name);
      if (host) {
        const h = host.status();
        return {
          ...s,
          state: h.state,
          tools: h.tools,
          restarts: h.restarts,
          ...(h.pid ? { pid: h.pid } : {}),
          ...(h.error ? { error: h.error } : {}),
        };
      }
      if (this.pending.has(p.name)) return { ...s, state: 'awaiting-confirmation' };
      return s;
    });
  }

  /**
   * The owner's confirmation of an untrusted plugin's permissions, with the code the gateway printed
   * on its terminal: stored (a restart does not ask again until the manifest asks for other
   * permissions) and the plugin starts now.
   */
  confirm(name: string, code: string): PluginStatus {
    const p = this.plugins.find((x) => x.name === name && x.manifest && !x.error);
    const pending = this.pending.get(name);
    if (!p || !pending || pending.expiresAt < Date.now()) {
      throw new NestclawError(
        'not_found',
        `no plugin "${name}" is waiting for confirmation (the gateway prints a new code at its next start)`,
      );
    }
    if (code.replace(/[\s-]/g, '').toUpperCase() !== pending.code) {
      // Five wrong guesses void the code; a restart prints a new one.
      if (++pending.wrong >= 5) this.pending.delete(name);
      throw new NestclawError('unauthorized', 'Wrong or expired confirmation code');
    }
    this.pending.delete(name);
    this.grants.grant(name, p.manifest!.permissions);
    this.logger.log(`the owner confirmed plugin ${name}'s permissions`);
    this.startUntrusted(p);
    return this.status().find((s) => s.name === name)!;
  }

  /**
   * The owner's enable/disable from the admin API: persisted with the CLI's choices
   * (`plugins/.choices.json`), then applied now as reload does. Trust is never set here.
   */
  setEnabled(name: string, enabled: boolean): Promise<PluginChange> {
    return this.serial(async () => {
      const found = this.rediscover().find((p) => p.name === name);
      if (!found) throw this.unknown(name);
      // Its channel's `enabled` in config decides a bundled plugin; a choice here would be ignored at the next start.
      if (found.origin === 'bundled') {
        throw new NestclawError('conflict', `plugin ${name} is bundled with nestclaw: set channels.${name}.enabled in config.yaml instead`);
      }
      PluginChoicesStore.inHome(this.config.home).set(name, { enabled });
      return this.apply(name);
    });
  }

  /**
   * Re-reads one plugin from disk (manifest, config entry, the owner's choices) and applies it now: one
   * newly installed starts; a disabled one stops at once (its tools leave the registry, so the next turn
   * no longer offers them; an untrusted one's process is stopped; a trusted one's provider kinds are
   * unregistered); an enabled one loads, or starts, or asks for a confirmation code. What the caller may
   * want (trust above all) is never taken from the request: only what the owner wrote on the host.
   */
  reload(name: string): Promise<PluginChange> {
    return this.serial(() => this.apply(name));
  }

  private async apply(name: string): Promise<PluginChange> {
    const next = this.rediscover().find((p) => p.name === name);
    if (!next) throw this.unknown(name);
    const index = this.plugins.findIndex((p) => p.name === name);
    const sticky = [this.plugins[index], next].map((p) => p && stickyParts(p)).find(Boolean);
    if (sticky) {
      // The channel registry and the memory index take these once, at start: the choice is kept for then.
      const plugin = index >= 0 ? this.statusOf(name) : foundStatus(next);
      return { plugin, restartNeeded: `plugin ${name} adds ${sticky}, which a running gateway cannot swap: restart it to apply` };
    }
    this.unload(name);
    if (index >= 0) this.plugins[index] = next;
    else this.plugins.push(next);
    if (next.error) this.logger.error(`plugin ${name} is not usable: ${next.error}`);
    else if (next.enabled && next.manifest?.track === 'trusted') {
      forgetPluginModules(next.dir);
      await this.loadTrusted(next);
    } else if (next.enabled && next.manifest) this.startUntrusted(next);
    else this.logger.log(`plugin ${name} is disabled`);
    return { plugin: this.statusOf(name) };
  }

  private unload(name: string): void {
    this.hosts.get(name)?.stop();
    this.hosts.delete(name);
    this.pending.delete(name);
    this.failures.delete(name);
    this.source.set(name, []);
    const done = this.loaded.get(name);
    if (!done) return;
    this.loaded.delete(name);
    for (const kind of done.providers) {
      this.providerKinds.delete(kind);
      this.providers.unregisterKind(kind);
    }
  }

  private rediscover(): DiscoveredPlugin[] {
    return withBundledPlugins(this.config.get(), discoverPlugins(this.config.home, this.config.get().plugins));
  }

  private statusOf(name: string): PluginStatus {
    return this.status().find((s) => s.name === name)!;
  }

  private unknown(name: string): NestclawError {
    return new NestclawError('not_found', `no plugin "${name}" (folders in $NESTCLAW_HOME/plugins, or plugins: in config)`);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.changing.then(fn, fn);
    this.changing = run.catch(() => undefined);
    return run;
  }

  private async loadTrusted(p: DiscoveredPlugin): Promise<void> {
    if (!p.trusted) {
      this.logger.warn(`plugin ${p.name} asks to run inside the gateway; not loaded until the owner marks it trusted`);
      return;
    }
    try {
      const done = await loadTrustedPlugin(p, {
        setTools: (plugin, tools) => this.source.set(plugin, tools),
        toolOwner: (tool) => this.source.owner(tool),
        providerOwner: (kind) => this.providerKinds.get(kind),
        registerProviderKind: (plugin, kind, create) => {
          this.providerKinds.set(kind, plugin);
          this.providers.registerKind(kind, create);
        },
        unregisterProviderKind: (kind) => {
          this.providerKinds.delete(kind);
          this.providers.unregisterKind(kind);
        },
        registerChannel: (adapter) => {
          // A plugin cannot stand in for a built-in channel (bundled ones add theirs) or another plugin's: it fails instead.
          const builtIn = p.origin !== 'bundled' && isBuiltInChannel(adapter.id);
          if (builtIn || this.channelAdapters.some((a) => a.id === adapter.id))
            throw new Error(`channel id "${adapter.id}" is already taken`);
          this.channelAdapters.push(adapter);
        },
        registerMemoryStore: (plugin, version, store) => this.memoryStores.register(plugin, version, store),
        unregisterMemoryStore: (id) => this.memoryStores.unregister(id),
      });
      this.loaded.set(p.name, done);
      this.logger.log(
        `loaded trusted plugin ${p.name} ${p.manifest!.version} in-process (tools: ${done.tools.join(', ') || 'none'}; providers: ${done.providers.join(', ') || 'none'}; channels: ${done.channels.join(', ') || 'none'})`,
      );
    } catch (e) {
      const why = (e as Error)?.message ?? String(e);
      this.failures.set(p.name, why);
      this.logger.error(`trusted plugin ${p.name} failed to load: ${why}`);
    }
  }

  private startUntrusted(p: DiscoveredPlugin): void {
    const m = p.manifest!;
    if (asksForPermissions(m.permissions) && !this.grants.granted(m.name, m.permissions)) {
      this.askConfirmation(p);
      return;
    }
    // A stopped host's process exits later and reports its tools once more: only the current host speaks for the plugin.
    const host: UntrustedPluginHost = new UntrustedPluginHost(p, this.config.home, (tools) => {
      if (this.hosts.get(m.name) === host) this.source.set(m.name, tools);
    });
    this.hosts.set(m.name, host);
    host.start();
  }

  private askConfirmation(p: DiscoveredPlugin): void {
    const m = p.manifest!;
    let code = '';
    for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    this.pending.set(m.name, { code, expiresAt: Date.now() + CONFIRM_TTL_MS, wrong: 0 });
    const asks = [
      m.permissions.network ? 'network' : '',
      m.permissions.shell ? 'shell' : '',
      ...m.permissions.fs.map((g) => `${g.mode === 'rw' ? 'read-write' : 'read-only'} ${g.path}`),
    ].filter(Boolean);
    // Straight to stdout, never through the logger (logs may be shipped elsewhere): only the owner at this terminal sees it.
    process.stdout.write(
      `\nnestclaw: plugin ${m.name} ${m.version} (untrusted, ${p.dir}) asks for: ${asks.join('; ')}.\n` +
        `It does NOT start until confirmed within 10 minutes with code ${code}:\n` +
        `  nestclaw plugins confirm ${m.name} ${code}\n` +
        `  (or POST /v1/plugins/${m.name}/confirm {"code": "${code}"})\n\n`,
    );
    this.logger.warn(`plugin ${m.name} asks for permissions (${asks.join('; ')}); waiting for the owner's confirmation`);
  }
}
