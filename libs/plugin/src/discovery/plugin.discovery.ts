import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PluginConfigEntry } from '@nestclaw/config';
import { PluginChoicesStore } from '../confirmation/plugin-choices.store';
import { checkPluginConfig, readManifest } from '../manifest/manifest.reader';
import type { PluginManifest } from '../manifest/plugin-manifest.schema';
import type { PluginApi } from '../trusted/plugin-api';

/** One plugin as found on disk: its manifest (or why it has none usable) and the owner's settings for it. */
export interface DiscoveredPlugin {
  /** The manifest's name; the folder or package name when the manifest is unusable. */
  name: string;
  dir: string;
  /** `bundled`: shipped inside nestclaw (the Slack and Feishu channels, bundled/), its code in `register`. */
  origin: 'home' | 'config' | 'bundled';
  enabled: boolean;
  /** The owner marked it trusted (`plugins[].trusted`): only then may a trusted-track plugin load in-process. */
  trusted: boolean;
  config: Record<string, unknown>;
  manifest?: PluginManifest;
  entryPath?: string;
  /** A bundled plugin's register(api), used instead of loading `entryPath`. */
  register?: (api: PluginApi) => unknown;
  /** Why it cannot be used (bad manifest, missing entry, config that does not fit, a second plugin of the same name). */
  error?: string;
}

/** Where plugin folders are looked for: `$NESTCLAW_HOME/plugins/<name>/`. */
export const pluginsHome = (home: string) => join(home, 'plugins');

/**
 * Every plugin: the folders under `$NESTCLAW_HOME/plugins/` and the `plugins` entries of config
 * (an entry naming a home folder gives that folder its settings). Reads manifests only — no plugin
 * code runs here — and never throws: an unusable plugin is listed with its reason.
 */
export function discoverPlugins(home: string, entries: readonly PluginConfigEntry[]): DiscoveredPlugin[] {
  const found: DiscoveredPlugin[] = [];
  const byDir = new Map<string, DiscoveredPlugin>();
  const add = (dir: string, origin: DiscoveredPlugin['origin'], label: string, entry?: PluginConfigEntry) => {
    const key = realOrSame(dir);
    const existing = byDir.get(key);
    const settings = entry
      ? { enabled: entry.enabled, trusted: entry.trusted, config: entry.config }
      : { enabled: true, trusted: false, config: {} };
    if (existing) {
      Object.assign(existing, settings, { origin: 'config' });
      return;
    }
    const p: DiscoveredPlugin = { name: label, dir, origin, ...settings };
    byDir.set(key, p);
    found.push(p);
  };
  const root = pluginsHome(home);
  if (existsSync(root)) {
    let names: string[] = [];
    try {
      names = readdirSync(root, { withFileTypes: true })
        .filter((d) => (d.isDirectory() || d.isSymbolicLink()) && !d.name.startsWith('.'))
        .map((d) => d.name)
        .sort();
    } catch {
      // An unreadable plugins folder lists nothing; /doctor shows the config entries still.
    }
    for (const name of names) add(join(root, name), 'home', name);
  }
  for (const entry of entries) {
    if (entry.path) add(entry.path, 'config', entry.path, entry);
    else if (entry.package) {
      const dir = packageDir(entry.package, home);
      if (dir) add(dir, 'config', entry.package, entry);
      else
        found.push({
          name: entry.package,
          dir: '',
          origin: 'config',
          enabled: entry.enabled,
          trusted: entry.trusted,
          config: entry.config,
          error: `npm package ${entry.package} is not installed`,
        });
    }
  }
  const names = new Set<string>();
  const choices = PluginChoicesStore.inHome(home);
  for (const p of found) {
    if (p.error) continue;
    const r = readManifest(p.dir);
    if (!r.ok) {
      p.error = r.error;
      continue;
    }
    p.manifest = r.manifest;
    p.entryPath = r.entryPath;
    p.name = r.manifest.name;
    if (names.has(p.name)) {
      p.error = `another plugin is already named "${p.name}"`;
      continue;
    }
    names.add(p.name);
    // The owner's later word (`nestclaw plugins trust|enable|disable`) wins over config's entry.
    const choice = choices.get(p.name);
    if (choice?.enabled !== undefined) p.enabled = choice.enabled;
    if (choice?.trusted !== undefined) p.trusted = choice.trusted;
    try {
      p.error = checkPluginConfig(r.manifest, p.config);
    } catch (e) {
      p.error = `configSchema: ${(e as Error).message}`;
    }
  }
  return found;
}

function realOrSame(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** An installed npm package's folder, looked up from `$NESTCLAW_HOME` and then from where nestclaw runs. */
function packageDir(name: string, home: string): string | undefined {
  try {
    return dirname(createRequire(join(home, 'noop.js')).resolve(`${name}/package.json`, { paths: [home, process.cwd()] }));
  } catch {
    return undefined;
  }
}
