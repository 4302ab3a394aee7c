import { isAbsolute } from 'node:path';
import { z } from 'zod';

/**
 * Plugins besides the folders under `$NESTCLAW_HOME/plugins/` (docs/plugins.md): a folder or an
 * installed npm package holding a `nestclaw.plugin.json`. Nothing here runs the plugin: its manifest
 * is read first, and only `trusted: true` lets a plugin whose manifest asks for the trusted track
 * load in-process; every other plugin runs as a sandboxed child process.
 */
const pluginEntry = z
  .strictObject({
    /** A folder holding `nestclaw.plugin.json` (absolute). */
    path: z
      .string()
      .refine((d) => isAbsolute(d), { message: 'must be an absolute path' })
      .optional(),
    /** An npm package installed where the gateway resolves modules (its folder holds the manifest). */
    package: z.string().min(1).optional(),
    enabled: z.boolean().default(true),
    /** The owner's word that this plugin may run inside the gateway process (Track A). */
    trusted: z.boolean().default(false),
    /** The plugin's own settings, checked against its manifest's `configSchema`. */
    config: z.record(z.string(), z.unknown()).default({}),
  })
  .refine((p) => !!p.path !== !!p.package, { message: 'give exactly one of path or package' });

export const pluginsSchema = z.array(pluginEntry).default([]);
export type PluginConfigEntry = z.output<typeof pluginEntry>;
