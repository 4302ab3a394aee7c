import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
  constructor(private readonly file: string) {}

  static inHome(home: string): PluginChoicesStore {
    return new PluginChoicesStore(join(home, 'plugins', '.choices.json'));
  }

  get(plugin: string): PluginChoice | undefined {
    return this.read()[plugin];
  }

  set(plugin: string, choice: PluginChoice): void {
    const all = this.read();
    all[plugin] = { ...all[plugin], ...choice };
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  private read(): Record<string, PluginChoice> {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, PluginChoice>) : {};
    } catch {
      return {};
    }
  }
}
