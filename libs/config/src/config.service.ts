import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { watch, FSWatcher } from 'chokidar';
import { isDeepStrictEqual } from 'node:util';
import { CONFIRMABLE_SECTIONS, HOT_SECTIONS, HotSection, logLevelsFor, NestclawConfig, STATIC_SECTIONS } from './config.schema';
import { loadConfig } from './config.loader';
import { FileChangeListener, Reconfigurable } from './reconfigurable';

/** Injection token of the composition root's ConfigOptions (ConfigModule.forRoot). */
export const CONFIG_OPTIONS = Symbol('CONFIG_OPTIONS');

export interface ConfigOptions {
  path: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Re-read the file on change (default true). */
  watch: boolean;
  /** Configuration already loaded from `path`; read from the file when absent. */
  loaded?: NestclawConfig;
}

/**
 * The configuration in force. The one watcher of the config file: each change is read and validated
 * once, then pushed to the components that registered (`register`, `onFileChange`).
 */
@Injectable()
export class ConfigService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Config');
  private current: NestclawConfig;
  private watcher?: FSWatcher;
  private readonly reconfigurables = new Set<Reconfigurable>();
  private readonly fileListeners = new Set<FileChangeListener>();

  constructor(@Inject(CONFIG_OPTIONS) readonly options: ConfigOptions) {
    this.current = options.loaded ?? loadConfig(options.path, options.env).config;
  }

  /** Receive hot sections (models, providers, agents, prompts, log) when the file changes them. */
  register(component: Reconfigurable): void {
    this.reconfigurables.add(component);
  }

  /** Receive every valid version of the file, static sections included (see FileChangeListener). */
  onFileChange(listener: FileChangeListener): void {
    this.fileListeners.add(listener);
  }

  get(): NestclawConfig {
    return this.current;
  }

  get home(): string {
    return this.options.home;
  }

  get path(): string {
    return this.options.path;
  }

  async onModuleInit(): Promise<void> {
    if (!this.options.watch) return;
    this.watcher = watch(this.options.path, { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 20 } });
    this.watcher.on('add', () => void this.reload());
    this.watcher.on('change', () => void this.reload());
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.watcher?.close();
  }

  /** Re-reads the file; an invalid file is reported and the running config kept. */
  async reload(): Promise<HotSection[]> {
    let next: NestclawConfig;
    try {
      next = loadConfig(this.options.path, this.options.env).config;
    } catch (e) {
      this.logger.error(`${(e as Error).message}\nKeeping the running configuration.`);
      return [];
    }
    const fromFile = next;
    const prev = this.current;
    for (const section of STATIC_SECTIONS) {
      if (!isDeepStrictEqual(prev[section], next[section])) {
        this.logger.warn(
          CONFIRMABLE_SECTIONS.includes(section)
            ? `"${section}" changed in ${this.options.path}: allowlists, approvers and rate limits apply once the owner confirms the code printed below; anything else there needs a restart`
            : `"${section}" changed in ${this.options.path}: restart required for it to take effect`,
        );
        next = { ...next, [section]: prev[section] };
      }
    }
    const changed = HOT_SECTIONS.filter((s) => !isDeepStrictEqual(prev[s], next[s]));
    this.current = next;
    for (const listener of this.fileListeners) await this.deliver(listener.name, () => listener(fromFile));
    if (changed.length === 0) return [];
    this.logger.log(`Reloaded ${changed.join(', ')} from ${this.options.path}`);
    if (changed.includes('log')) Logger.overrideLogger(logLevelsFor(next.log.level));
    for (const component of this.reconfigurables)
      await this.deliver(component.constructor.name, () => component.reconfigure(next, changed));
    return changed;
  }

  /** One component failing to apply a change must not keep it from the others. */
  private async deliver(name: string, apply: () => void | Promise<void>): Promise<void> {
    try {
      await apply();
    } catch (e) {
      this.logger.error(`${name || 'a listener'} could not apply the new configuration: ${(e as Error).message}`);
    }
  }
}
