import { join } from 'node:path';
import { OwnerRecordFile } from './owner-record.file';

/** The owner's choice for one plugin; an unset key leaves config's `plugins:` entry (or the default) in force. */
export interface PluginChoice {
  trusted?: boolean;
  enabled?: boolean;
}

/**
 * The owner's `nestclaw plugins trust|enable|disable` choices, in `$NESTCLAW_HOME/plugins/.choices.json`
 * (mode 0600), keyed by manifest name, next to `.grants.json`. A file of its own rather than an edit of
 * config.yaml: `plugins:` is a restart-only section the config editor never writes, a home folder
 * plugin has no entry there to edit, and config may be read-only or generated (docs/plugins.md).
 * Trust is written only by the CLI on the host; the gateway writes `enabled` alone.
 */
export class PluginChoicesStore {
  private readonly file: OwnerRecordFile<PluginChoice>;

  constructor(file: string) {
    this.file = new OwnerRecordFile(file);
  }

  static inHome(home: string): PluginChoicesStore {
    return new PluginChoicesStore(join(home, 'plugins', '.choices.json'));
  }

  get(plugin: string): PluginChoice | undefined {
    return this.file.read()[plugin];
  }

  set(plugin: string, choice: PluginChoice): void {
    const all = this.file.read();
    all[plugin] = { ...all[plugin], ...choice };
    this.file.write(all);
  }
}
