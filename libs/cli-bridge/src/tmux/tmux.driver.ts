import { Injectable } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { ConfigService } from '@nestclaw/config';

/** nestclaw's own tmux server (`tmux -L nestclaw`): its sessions are ours, and a user's tmux is never touched. */
export const TMUX_SOCKET = 'nestclaw';

/** Keys `/keys` may send, by the names a person types, as tmux key names. */
export const NAMED_KEYS: Readonly<Record<string, string>> = {
  esc: 'Escape',
  tab: 'Tab',
  'shift-tab': 'BTab',
  enter: 'Enter',
  'ctrl-c': 'C-c',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
};

export interface NewTmuxSession {
  name: string;
  dir: string;
  command: string;
  args: string[];
  /** The whole environment of the CLI: nothing of the gateway's leaks in. */
  env: Record<string, string>;
}

/**
 * tmux, driven with argument lists (execFile, never a shell string). Text goes in by bracketed paste
 * (the buffer read from stdin, so any length and any character arrives intact) and Enter follows as
 * its own key: a CLI that swallows an Enter inside a paste still gets the submit.
 */
@Injectable()
export class TmuxDriver {
  /** `NESTCLAW_TMUX_SOCKET` gives a gateway a socket of its own (two gateways on one machine, the tests). */
  private readonly socket: string;

  constructor(config: ConfigService) {
    this.socket = config.options.env.NESTCLAW_TMUX_SOCKET || TMUX_SOCKET;
  }

  async create(s: NewTmuxSession): Promise<void> {
    const env = Object.entries(s.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // A wide pane keeps lines from wrapping; -u: the CLI's UTF-8 (Chinese, spinners) is kept as written.
    // The CLI's env goes in by -e only: the client that starts the tmux server hands its own environment
    // to the server as the global one, which every later session (another CLI) inherits.
    await this.run(['new-session', '-d', '-s', s.name, '-c', s.dir, '-x', '200', '-y', '50', ...env, '--', s.command, ...s.args]);
    // A crashed CLI's session ends with it (has-session then fails): that is how death is seen.
    await this.run(['set-option', '-t', exact(s.name), 'remain-on-exit', 'off']).catch(() => undefined);
  }

  async paste(name: string, text: string): Promise<void> {
    const buffer = `nestclaw-${name}`;
    await this.run(['load-buffer', '-b', buffer, '-'], undefined, text);
    await this.run(['paste-buffer', '-p', '-d', '-b', buffer, '-t', pane(name)]);
  }

  /** tmux key names (`Enter`, `Escape`, `Up`) or literal characters (`y`, `1`), each sent as one key. */
  async keys(name: string, keys: string[]): Promise<void> {
    for (const k of keys) await this.run(['send-keys', '-t', pane(name), ...(k.length === 1 ? ['-l', k] : [k])]);
  }

  /** The pane's text with its scrollback, wrapped lines joined (-J); no escape sequences are asked for. */
  async capture(name: string): Promise<string> {
    return this.run(['capture-pane', '-p', '-J', '-S', '-', '-t', pane(name)]);
  }

  async alive(name: string): Promise<boolean> {
    return this.run(['has-session', '-t', exact(name)]).then(
      () => true,
      () => false,
    );
  }

  async kill(name: string): Promise<void> {
    await this.run(['kill-session', '-t', exact(name)]).catch(() => undefined);
  }

  /** Names of the sessions on nestclaw's socket (none when its server is not running). */
  async list(): Promise<string[]> {
    const out = await this.run(['list-sessions', '-F', '#{session_name}']).catch(() => '');
    return out.split('\n').filter(Boolean);
  }

  private run(args: string[], env?: Record<string, string>, stdin?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        'tmux',
        ['-u', '-L', this.socket, ...args],
        { env: env ?? minimalEnv(), timeout: 10_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => (err ? reject(new Error(`tmux ${args[0]}: ${stderr.trim() || err.message}`)) : resolve(stdout)),
      );
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
  }
}

/** `=name` matches the session exactly (`nestclaw-x-1` must not find `nestclaw-x-10`). */
const exact = (name: string) => `=${name}`;
const pane = (name: string) => `=${name}:`;

/** What a CLI (and the tmux server that starts it) gets from the gateway's environment: a path, a home, a UTF-8 locale. */
export function minimalEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...extra,
  };
}
