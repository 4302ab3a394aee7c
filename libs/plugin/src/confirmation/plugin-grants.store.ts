import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { PluginPermissions } from '../manifest/plugin-manifest.schema';
import { OwnerRecordFile } from './owner-record.file';

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
  private readonly file: OwnerRecordFile<Grant>;

  constructor(file: string) {
    this.file = new OwnerRecordFile(file);
  }

  static inHome(home: string): PluginGrantsStore {
    return new PluginGrantsStore(join(home, 'plugins', '.grants.json'));
  }

  granted(plugin: string, permissions: PluginPermissions): boolean {
    const g = this.file.read()[plugin];
    return !!g && g.permissions === permissionsFingerprint(permissions);
  }

  grant(plugin: string, permissions: PluginPermissions): void {
    const all = this.file.read();
    all[plugin] = { permissions: permissionsFingerprint(permissions), confirmedAt: new Date().toISOString() };
    this.file.write(all);
  }
}
