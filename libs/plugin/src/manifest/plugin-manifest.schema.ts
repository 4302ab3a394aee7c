import { isAbsolute, normalize } from 'node:path';
import { z } from 'zod';

export const MANIFEST_FILE = 'nestclaw.plugin.json';

/** Plugin names: lower-case letters, digits and `-` (they name folders, log lines and `plugin:<id>` providers). */
export const PLUGIN_NAME = /^[a-z][a-z0-9-]{0,39}$/;
/**
 * Tool names as the model sees them: OpenAI accepts only [a-zA-Z0-9_-]; lower-case and `_` keep them
 * apart from MCP's `<server>__<tool>` and easy to list in an agent's `tools`.
 */
export const PLUGIN_TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const CONTRIBUTION_ID = /^[a-z][a-z0-9-]{0,39}$/;

/** A path the manifest names inside the plugin's folder: relative, and never climbing out of it. */
const insidePath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).startsWith('..'), { message: "must be a path inside the plugin's folder" });

const fsGrant = z.strictObject({
  /** An absolute host path the plugin may see (at the same path inside its sandbox). */
  path: z.string().refine((p) => isAbsolute(p) && normalize(p) === p.replace(/\/+$/, '') && p !== '/', {
    message: 'must be an absolute, normalised path other than /',
  }),
  mode: z.enum(['ro', 'rw']),
});

/**
 * `nestclaw.plugin.json`: everything nestclaw knows about a plugin before any of its code runs,
 * so /doctor, `nestclaw plugins list` and the UI can show it without loading it (docs/plugins.md).
 */
export const pluginManifestSchema = z.strictObject({
  name: z.string().regex(PLUGIN_NAME, { message: 'lower-case letters, digits and -, starting with a letter (at most 40)' }),
  version: z.string().min(1).max(64),
  description: z.string().max(500).optional(),
  /**
   * Trusted: a CommonJS module exporting `register(api)`, loaded in the gateway's process. Untrusted:
   * the program started as a child (`.js`/`.cjs`/`.mjs` with Node, `.py` with python3, else run as is).
   */
  entry: insidePath,
  /** What the plugin asks for; the trusted track also needs the owner's `trusted: true`. */
  track: z.enum(['trusted', 'untrusted']).default('untrusted'),
  contributes: z
    .strictObject({
      tools: z
        .array(z.string().regex(PLUGIN_TOOL_NAME, { message: 'tool names: lower-case letters, digits and _ (at most 64)' }))
        .default([]),
      providers: z.array(z.string().regex(CONTRIBUTION_ID, { message: 'provider ids: lower-case letters, digits and -' })).default([]),
      channels: z.array(z.string().regex(CONTRIBUTION_ID, { message: 'channel ids: lower-case letters, digits and -' })).default([]),
      /**
       * The memory search stores the plugin may register (`memory.store: plugin:<id>`): their ids, or `true` for
       * one whose id is the plugin's name (older manifests said only true/false).
       */
      memoryStore: z
        .union([
          z.boolean(),
          z.array(z.string().regex(CONTRIBUTION_ID, { message: 'memory store ids: lower-case letters, digits and -' })).min(1),
        ])
        .default(false),
    })
    .default({ tools: [], providers: [], channels: [], memoryStore: false }),
  /** JSON Schema of the plugin's `config` (an object schema), checked before the plugin starts. */
  configSchema: z.record(z.string(), z.unknown()).optional(),
  /** What an untrusted plugin's sandbox lets it reach; each one needs the owner's confirmation. */
  permissions: z
    .strictObject({
      network: z.boolean().default(false),
      fs: z.array(fsGrant).max(32).default([]),
      shell: z.boolean().default(false),
    })
    .default({ network: false, fs: [], shell: false }),
  /** Limits of an untrusted plugin's process. */
  limits: z
    .strictObject({
      memoryMb: z.number().int().min(32).max(4096).default(256),
      callTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    })
    .default({ memoryMb: 256, callTimeoutMs: 30_000 }),
});

export type PluginManifest = z.output<typeof pluginManifestSchema>;
export type PluginPermissions = PluginManifest['permissions'];

/** Whether a manifest asks for anything beyond a closed sandbox (then the owner must confirm it). */
/** The memory store ids a manifest lets its plugin register. */
export function declaredMemoryStores(manifest: Pick<PluginManifest, 'name' | 'contributes'>): string[] {
  const declared = manifest.contributes.memoryStore;
  return declared === true ? [manifest.name] : declared === false ? [] : declared;
}

export const asksForPermissions = (p: PluginPermissions): boolean => p.network || p.shell || p.fs.length > 0;
