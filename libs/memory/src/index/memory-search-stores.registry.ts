import { Injectable } from '@nestjs/common';
import type { MemorySearchStoreDefinition } from './memory-search-store.port';

/** A registered store kind and the plugin (name and version) that added it. */
export interface RegisteredSearchStore {
  definition: MemorySearchStoreDefinition;
  plugin: string;
  pluginVersion: string;
}

/**
 * The search-store kinds trusted plugins added (`registerMemoryStore`), by id. Plugins register while
 * modules initialise; memory picks the one `memory.store` names when the application bootstraps.
 */
@Injectable()
export class MemorySearchStores {
  private readonly kinds = new Map<string, RegisteredSearchStore>();

  /** Throws when another plugin already added this id (the plugin then fails to load). */
  register(plugin: string, pluginVersion: string, definition: MemorySearchStoreDefinition): void {
    const owner = this.kinds.get(definition.id)?.plugin;
    if (owner && owner !== plugin) throw new Error(`memory store "${definition.id}" is already added by plugin ${owner}`);
    this.kinds.set(definition.id, { definition, plugin, pluginVersion });
  }

  unregister(id: string): void {
    this.kinds.delete(id);
  }

  get(id: string): RegisteredSearchStore | undefined {
    return this.kinds.get(id);
  }
}
