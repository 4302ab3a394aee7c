import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { replaceFileWhole } from '@nestclaw/common';

/**
 * The owner's per-plugin records under `$NESTCLAW_HOME/plugins` (`.grants.json`, `.choices.json`): a JSON
 * object keyed by plugin name, private to the owner (0600 in a 0700 folder), replaced whole on each write.
 * A missing or unreadable file reads as empty.
 */
export class OwnerRecordFile<T> {
  constructor(private readonly file: string) {}

  read(): Record<string, T> {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, T>) : {};
    } catch {
      return {};
    }
  }

  write(all: Record<string, T>): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    replaceFileWhole(this.file, JSON.stringify(all, null, 2), 0o600);
  }
}
