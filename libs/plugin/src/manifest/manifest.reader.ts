import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { MANIFEST_FILE, PluginManifest, pluginManifestSchema } from './plugin-manifest.schema';

/** A manifest larger than this is not a manifest. */
const MAX_MANIFEST_BYTES = 64 * 1024;

export type ManifestResult = { ok: true; manifest: PluginManifest; entryPath: string } | { ok: false; error: string };

/**
 * Reads and checks a plugin folder's manifest without running anything of the plugin: JSON, the
 * schema, and an entry that exists inside the folder (a symlink out of it is refused).
 */
export function readManifest(dir: string): ManifestResult {
  const file = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_MANIFEST_BYTES) return { ok: false, error: `${MANIFEST_FILE} is ${size} bytes (at most ${MAX_MANIFEST_BYTES})` };
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, error: code === 'ENOENT' ? `no ${MANIFEST_FILE} in ${dir}` : `cannot read ${file}: ${(e as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${MANIFEST_FILE} is not JSON: ${(e as Error).message}` };
  }
  const parsed = pluginManifestSchema.safeParse(json);
  if (!parsed.success) return { ok: false, error: `${MANIFEST_FILE}: ${describeIssues(parsed.error)}` };
  const manifest = parsed.data;
  if (manifest.configSchema) {
    try {
      z.fromJSONSchema(manifest.configSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (e) {
      return { ok: false, error: `${MANIFEST_FILE}: configSchema is not a JSON Schema nestclaw can check: ${(e as Error).message}` };
    }
  }
  let entryPath: string;
  try {
    const root = realpathSync(dir);
    entryPath = realpathSync(resolve(root, manifest.entry));
    const rel = relative(root, entryPath);
    if (rel.startsWith('..') || rel.startsWith(sep))
      return { ok: false, error: `entry ${manifest.entry} leads out of the plugin's folder` };
    if (!statSync(entryPath).isFile()) return { ok: false, error: `entry ${manifest.entry} is not a file` };
  } catch {
    return { ok: false, error: `entry ${manifest.entry} does not exist` };
  }
  return { ok: true, manifest, entryPath };
}

/** Checks a plugin's `config` against its manifest's configSchema; the reason when it does not fit. */
export function checkPluginConfig(manifest: PluginManifest, config: Record<string, unknown>): string | undefined {
  if (!manifest.configSchema) return undefined;
  const schema = z.fromJSONSchema(manifest.configSchema as Parameters<typeof z.fromJSONSchema>[0]);
  const r = schema.safeParse(config);
  return r.success ? undefined : `config does not fit the plugin's configSchema: ${describeIssues(r.error)}`;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
