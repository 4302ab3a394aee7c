import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { watch, FSWatcher } from 'chokidar';
import { isDeepStrictEqual } from 'node:util';
import { CONFIRMABLE_SECTIONS, HOT_SECTIONS, HotSection, logLevelsFor, NestclawConfig, STATIC_SECTIONS } from './config.schema';
import { loadConfig } from './config.loader';
import { isReconfigurable } from './reconfigurable';

export interface ConfigOptions {
  path: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Re-read the file on change (default true). */
  watch: boolean;
  /** Configuration already loaded from `path`; read from the file when absent. */
  loaded?: NestclawConfig;
}

@Injectable()
export class ConfigService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Config');
  private current: NestclawConfig;
  private watcher?: FSWatcher;

  constructor(
    readonly options: ConfigOptions,
    private readonly discovery: DiscoveryService,
  ) {
    this.current = options.loaded ?? loadConfig(options.path, options.env).config;
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
    if (changed.length === 0) return [];
    this.logger.log(`Reloaded ${changed.join(', ')} from ${this.options.path}`);
    if (changed.includes('log')) Logger.overrideLogger(logLevelsFor(next.log.level));
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (instance !== this && isReconfigurable(instance)) {
        try {
          await instance.reconfigure(next, changed);
        } catch (e) {
          this.logger.error(`${wrapper.name} could not apply the new configuration: ${(e as Error).message}`);
        }
      }
    }
    return changed;
  }
}
