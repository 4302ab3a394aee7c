import { Injectable } from '@nestjs/common';
import { chownSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';
import { CliConfig, ConfigService } from '@nestclaw/config';
import { CliStopped, progressOf, stopOf } from './hook-events';
import { HOOKED_KINDS, HookInstall, hookInstall } from './hook-installs';

export type { CliStopped } from './hook-events';

/** What a session's hooks said since a message was typed (`CliHooks.since`). */
export interface HookReport {
  stopped?: CliStopped;
  progress?: string;
  live: boolean;
}

/** The most of the events file read at once (a Stop event carries the whole last answer). */
const MAX_READ = 16 * 1024 * 1024;

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * The best signal a CLI has that it finished, its own hooks (issue 26 item 3). For the kinds that have
 * them (`hook-installs.ts`: Claude Code, Gemini CLI, Codex) the bridge starts the CLI with hooks that
 * run bin/nestclaw-cli-hook.js, which appends each event to `$NESTCLAW_HOME/cli-hooks/<tmux session>/events.jsonl`.
 * An end-of-answer event after a message was typed ends the wait at once and carries the answer as the
 * CLI wrote it (its Markdown intact) rather than as its screen draws it; a tool event is the chat's
 * progress line. Without such an event (hooks off in that CLI, a hook that failed) the screen still
 * decides, as for any CLI.
 */
@Injectable()
export class CliHooks {
  private readonly root: string;

  constructor(config: ConfigService) {
    this.root = join(config.home, 'cli-hooks');
  }

  /** What installs the hooks for a new run of `session`, its folder made (owned by the CLI's user). */
  prepare(session: string, cfg: CliConfig, owner?: { uid: number; gid: number }): HookInstall {
    if (!HOOKED_KINDS.has(cfg.kind)) return { args: [], env: {} };
    const dir = this.dirOf(session);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const argv = [process.execPath, join(packageRoot(), 'bin', 'nestclaw-cli-hook.js'), dir];
    const install = hookInstall(cfg.kind, dir, { argv, commandLine: argv.map(quote).join(' ') }, !!owner);
    if (owner) for (const p of [dir, ...readdirSync(dir).map((f) => join(dir, f))]) chownSync(p, owner.uid, owner.gid);
    return install;
  }

  /** Where the events of `session` stand now (a message's answer is looked for after it); undefined: no hooks. */
  mark(session: string, cfg: CliConfig): number | undefined {
    if (!HOOKED_KINDS.has(cfg.kind) || !existsSync(this.dirOf(session))) return undefined;
    return this.read(session, 0).size;
  }

  /**
   * What the hooks said since `mark`, from one read of the events file (the exchange asks at every poll):
   * - `stopped`: the first end-of-answer event, with the answer's text when it carries one;
   * - `progress`: the newest tool the CLI reported starting, as the chat's progress line;
   * - `live`: this run of the CLI has reported anything at all (its SessionStart, an earlier answer), so
   *   its hooks work and its end event is waited for rather than a quiet screen, which a CLI that
   *   redraws before it answers can show while it is still on the message.
   */
  since(session: string, mark: number): HookReport {
    const { size, text } = this.read(session, mark);
    const report: HookReport = { live: size > 0 };
    for (const event of eventsOf(text)) {
      report.stopped ??= stopOf(event);
      report.progress = progressOf(event) ?? report.progress;
    }
    return report;
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

/** The events in `text`; a line cut short (the hook still writing it) ends the list until the next read. */
function eventsOf(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const event: unknown = JSON.parse(line);
      if (event && typeof event === 'object') events.push(event as Record<string, unknown>);
    } catch {
      break;
    }
  }
  return events;
}
