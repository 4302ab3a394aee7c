import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PluginPermissions } from '../manifest/plugin-manifest.schema';

interface Grant {
  /** sha256 of the confirmed permissions: a manifest that asks for more (or other) needs a new confirmation. */
  permissions: string;
  confirmedAt: string;
}

/** A stable fingerprint of what a manifest asks for. */
export function permissionsFingerprint(p: PluginPermissions): string {
  const canonical = {
    network: p.network,
    shell: p.shell,
    fs: [...p.fs].map((g) => `${g.mode}:${g.path}`).sort(),
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/**
 * The owner's confirmations of untrusted plugins' permissions, in `$NESTCLAW_HOME/plugins/.grants.json`
 * (mode 0600). Written only after a confirmation code printed on the gateway's terminal came back
 * through the authenticated API; a changed permission list no longer matches its grant.
 */
export class PluginGrantsStore {
  constructor(private readonly file: string) {}

  static inHome(home: string): PluginGrantsStore {
    return new PluginGrantsStore(join(home, 'plugins', '.grants.json'));
  }

  granted(plugin: string, permissions: PluginPermissions): boolean {
    const g = this.read()[plugin];
    return !!g && g.permissions === permissionsFingerprint(permissions);
  }

  grant(plugin: string, permissions: PluginPermissions): void {
    const all = this.read();
    all[plugin] = { permissions: permissionsFingerprint(permissions), confirmedAt: new Date().toISOString() };
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  private read(): Record<string, Grant> {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, Grant>) : {};
    } catch {
      return {};
    }
  }
}
