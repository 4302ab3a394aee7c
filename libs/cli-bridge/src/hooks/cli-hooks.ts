import { Injectable } from '@nestjs/common';
import { chownSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';
import { CliConfig, ConfigService } from '@nestclaw/config';

/** What a Stop hook said: the CLI finished its answer, and (when it says) the answer's text. */
export interface CliStopped {
  text?: string;
}

/** The most of the events file read at once (a Stop event carries the whole last answer). */
const MAX_READ = 16 * 1024 * 1024;

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * The best signal a CLI has that it finished, its own hooks (issue 26 item 3): for `kind: claude-code`
 * the bridge starts Claude Code with `--settings` holding a `Stop` and a `Notification` hook, each running
 * bin/nestclaw-cli-hook.js, which appends the hook's input to `$NESTCLAW_HOME/cli-hooks/<tmux session>/events.jsonl`.
 * A `Stop` event after a message was typed ends the wait at once and carries `last_assistant_message`,
 * the answer as Claude Code wrote it (its Markdown intact) rather than as its screen draws it. Without a
 * Stop event (hooks off in that Claude Code, a hook that failed) the screen still decides, as for any CLI.
 */
@Injectable()
export class CliHooks {
  private readonly root: string;

  constructor(config: ConfigService) {
    this.root = join(config.home, 'cli-hooks');
  }

  /** The extra arguments that install the hooks for a new run of `session`, its folder made (owned by the CLI's user). */
  prepare(session: string, cfg: CliConfig, owner?: { uid: number; gid: number }): string[] {
    if (cfg.kind !== 'claude-code') return [];
    const dir = this.dirOf(session);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const command = [process.execPath, join(packageRoot(), 'bin', 'nestclaw-cli-hook.js'), dir].map(quote).join(' ');
    const hook = [{ hooks: [{ type: 'command', command, timeout: 10 }] }];
    return ['--settings', JSON.stringify({ hooks: { Stop: hook, Notification: hook } })];
  }

  /** Where the events of `session` stand now (a message's answer is looked for after it); undefined: no hooks. */
  mark(session: string, cfg: CliConfig): number | undefined {
    if (cfg.kind !== 'claude-code' || !existsSync(this.dirOf(session))) return undefined;
    return this.read(session, 0).size;
  }

  /** The first Stop event written after `mark`, if any. */
  stoppedSince(session: string, mark: number): CliStopped | undefined {
    const { text } = this.read(session, mark);
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const event = JSON.parse(line) as { hook_event_name?: unknown; last_assistant_message?: unknown };
        if (event.hook_event_name !== 'Stop') continue;
        const said = typeof event.last_assistant_message === 'string' ? event.last_assistant_message.trim() : '';
        return said ? { text: said } : {};
      } catch {
        // A line cut short (the hook still writing it): read again at the next poll.
        return undefined;
      }
    }
    return undefined;
  }

  /** Ends the hooks of a session that ended. */
  remove(session: string): void {
    rmSync(this.dirOf(session), { recursive: true, force: true });
  }

  private dirOf(session: string): string {
    return join(this.root, session);
  }

  private read(session: string, from: number): { size: number; text: string } {
    let fd: number | undefined;
    try {
      fd = openSync(join(this.dirOf(session), 'events.jsonl'), 'r');
      const size = fstatSync(fd).size;
      const length = Math.min(Math.max(0, size - from), MAX_READ);
      const buffer = Buffer.alloc(length);
      if (length) readSync(fd, buffer, 0, length, from);
      return { size, text: buffer.toString('utf8') };
    } catch {
      return { size: 0, text: '' };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}
