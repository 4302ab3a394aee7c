export { PluginModule } from './plugin.module';
export { PluginService } from './plugin.service';
export type { PluginChange } from './plugin-change';
export { installPlugin } from './install/plugin.installer';
export type { InstalledPlugin } from './install/plugin.installer';
export { PluginChoicesStore } from './confirmation/plugin-choices.store';
export { listPlugins } from './plugin.listing';
export { discoverPlugins, pluginsHome } from './discovery/plugin.discovery';
export type { DiscoveredPlugin } from './discovery/plugin.discovery';
export { readManifest } from './manifest/manifest.reader';
export { MANIFEST_FILE, pluginManifestSchema } from './manifest/plugin-manifest.schema';
export type { PluginManifest, PluginPermissions } from './manifest/plugin-manifest.schema';
export type { PluginState, PluginStatus } from './plugin-status';
export type {
  PluginApi,
  PluginToolDefinition,
  PluginProviderDefinition,
  PluginModel,
  PluginChatRequest,
  PluginChatAnswer,
} from './trusted/plugin-api';
