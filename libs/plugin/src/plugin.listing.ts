import type { PluginConfigEntry } from '@nestclaw/config';
import { discoverPlugins } from './discovery/plugin.discovery';
import { foundStatus, PluginStatus } from './plugin-status';

/** Every plugin as its manifest describes it, without running any of them (`nestclaw plugins list`). */
export function listPlugins(home: string, entries: readonly PluginConfigEntry[]): PluginStatus[] {
  return discoverPlugins(home, entries).map(foundStatus);
}
