import type { DiscoveredPlugin } from './discovery/plugin.discovery';
import type { PluginStatus } from './plugin-status';

/** What a hot enable, disable or reload did: the plugin now, and why part of it waits for a restart. */
export interface PluginChange {
  plugin: PluginStatus;
  restartNeeded?: string;
}

/** What of a trusted plugin only a restart can add or remove: its channels and memory stores. */
export function stickyParts(p: DiscoveredPlugin): string | undefined {
  const c = p.manifest?.contributes;
  if (!c || p.manifest?.track !== 'trusted') return undefined;
  const parts = [c.channels.length ? `channels (${c.channels.join(', ')})` : '', c.memoryStore ? 'a memory store' : ''].filter(Boolean);
  return parts.length ? parts.join(' and ') : undefined;
}
