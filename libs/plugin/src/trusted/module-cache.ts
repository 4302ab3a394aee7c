import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';

/**
 * Forgets every module Node loaded from a trusted plugin's folder, so that enabling it again (or after
 * `nestclaw plugins install --force`) requires its code afresh instead of re-running register() on the
 * cached module. Node never unloads code: what the old copy left running (timers, sockets) stays until a
 * restart, which is why a trusted plugin's disable only removes what it registered.
 */
export function forgetPluginModules(dir: string): void {
  let root: string;
  try {
    root = realpathSync(dir) + sep;
  } catch {
    return;
  }
  const cache = createRequire(__filename).cache;
  for (const file of Object.keys(cache)) if (file.startsWith(root)) delete cache[file];
}
