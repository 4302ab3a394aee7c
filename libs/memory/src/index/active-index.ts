import { Injectable } from '@nestjs/common';
import { join } from 'node:path';
import { ConfigService } from '@nestclaw/config';
import type { DerivedIndex } from './derived-index';
import { LanceIndex } from './lance.index';
import { PluginStoreIndex } from './plugin-store.index';

/** The plugin store id `memory.store` selects, or undefined for the built-in index. */
export function pluginStoreId(store: string): string | undefined {
  return store.startsWith('plugin:') ? store.slice('plugin:'.length) : undefined;
}

/**
 * Which derived index the worker feeds and the rebuild fills: the built-in LanceDB one, or the plugin store
 * `memory.store: plugin:<id>` selects (fixed at start-up, like the index directory).
 */
@Injectable()
export class ActiveIndex {
  /** Decided when the index opens at start-up (a config change needs a restart); the built-in until then. */
  private usesPlugin = false;

  constructor(
    private readonly config: ConfigService,
    private readonly lance: LanceIndex,
    private readonly pluginStore: PluginStoreIndex,
  ) {}

  /** The plugin store when one is selected. */
  get plugin(): PluginStoreIndex | undefined {
    return this.usesPlugin ? this.pluginStore : undefined;
  }

  /**
   * At start-up: opens the selected index. A plugin store keeps its build record and its feed cursor's key in
   * `<dir>/plugin-<id>/`, apart from the built-in index, which stays as it was for a switch back.
   */
  async open(dir: string): Promise<{ found: boolean; cursorDir: string; what: string; unavailable?: string }> {
    const cfg = this.config.get().memory;
    const id = pluginStoreId(cfg.store);
    if (!id) return { found: !!(await this.lance.open(dir)), cursorDir: dir, what: `memory index at ${dir}` };
    this.usesPlugin = true;
    const found = await this.pluginStore.open(dir, id, cfg.store_settings);
    const unavailable = this.pluginStore.unavailable;
    return {
      found,
      cursorDir: join(dir, `plugin-${id}`),
      what: `filled memory store plugin:${id}`,
      ...(unavailable ? { unavailable } : {}),
    };
  }

  get current(): DerivedIndex {
    return this.plugin ?? this.lance;
  }
}
