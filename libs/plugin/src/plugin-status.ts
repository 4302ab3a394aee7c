import type { DiscoveredPlugin } from './discovery/plugin.discovery';
import type { PluginManifest } from './manifest/plugin-manifest.schema';

export type PluginState =
  /** Found and usable, not started in this process (the CLI's view). */
  | 'found'
  /** A trusted plugin whose register(api) succeeded. */
  | 'loaded'
  /** An untrusted plugin's process answers. */
  | 'running'
  | 'starting'
  /** An untrusted plugin's process died; it is started again after a backoff. */
  | 'restarting'
  | 'disabled'
  /** The manifest asks for the trusted track and the owner has not marked it `trusted: true`. */
  | 'not-trusted'
  /** An untrusted plugin asks for permissions the owner has not confirmed (docs/plugins.md). */
  | 'awaiting-confirmation'
  | 'failed';

/** One plugin for /doctor, `GET /v1/plugins` and `nestclaw plugins list`: never its config values. */
export interface PluginStatus {
  name: string;
  version?: string;
  origin: DiscoveredPlugin['origin'];
  dir: string;
  track?: PluginManifest['track'];
  trusted: boolean;
  state: PluginState;
  contributes?: PluginManifest['contributes'];
  permissions?: PluginManifest['permissions'];
  /** Tools offered now. */
  tools: string[];
  restarts?: number;
  /** An untrusted plugin's process (the sandbox's outer process), while one runs. */
  pid?: number;
  error?: string;
}

/** What discovery alone says about a plugin (nothing started). */
export function foundStatus(p: DiscoveredPlugin): PluginStatus {
  const m = p.manifest;
  let state: PluginState = 'found';
  if (p.error || !m) state = 'failed';
  else if (!p.enabled) state = 'disabled';
  else if (m.track === 'trusted' && !p.trusted) state = 'not-trusted';
  return {
    name: p.name,
    ...(m ? { version: m.version, track: m.track, contributes: m.contributes, permissions: m.permissions } : {}),
    origin: p.origin,
    dir: p.dir,
    trusted: p.trusted,
    state,
    tools: [],
    ...(p.error ? { error: p.error } : {}),
  };
}
