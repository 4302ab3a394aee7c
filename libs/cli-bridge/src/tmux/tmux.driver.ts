import { Injectable } from '@nestjs/common';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigService } from '@nestclaw/config';

/** nestclaw's own tmux server (`tmux -L nestclaw`): its sessions are ours, and a user's tmux is never touched. */
export const TMUX_SOCKET = 'nestclaw';

/** The pause between two keys sent to a CLI (a menu's arrows, then its Enter). */
const KEY_GAP_MS = 150;

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
    // The CLI's env holds secrets (clis.<name>.env), and a process's arguments are world-readable
    // (/proc/<pid>/cmdline, ps) — the tmux server keeps the argv of the client that started it. So the
    // env goes in a 0600 file in a 0700 directory that a shell in the pane reads, deletes, then execs
    // the CLI: no value is ever an argument. Not set with -e or set-environment either: the first
    // client's environment becomes the server's global one, which every later session (another CLI)
    // inherits, so only the pane's own shell may see it.
    const dir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-env-'));
    const file = join(dir, 'env');
    writeFileSync(file, envFile(s.env), { mode: 0o600 });
    // A wide pane keeps lines from wrapping; -u: the CLI's UTF-8 (Chinese, spinners) is kept as written.
    await this.run([
      'new-session',
      '-d',
      '-s',
      s.name,
      '-c',
      s.dir,
      '-x',
      '200',
      '-y',
      '50',
      '--',
      ...launcher(file, dir),
      s.command,
      ...s.args,
    ]).catch((e: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    });
    // A crashed CLI's session ends with it (has-session then fails): that is how death is seen.
    await this.run(['set-option', '-t', exact(s.name), 'remain-on-exit', 'off']).catch(() => undefined);
  }

  /**
   * Types `text` into the CLI and presses Enter, both or neither, whatever happens to the gateway: the text
   * waits in a tmux buffer (invisible), then one detached shell (its own session, so a kill of the gateway's
   * whole process group spares it) pastes it and sends Enter, as two tmux calls a few milliseconds apart
   * like before (a TUI may take an Enter that arrives with the paste as part of it). A gateway killed between
   * a paste and its Enter left the text typed but never sent: after the restart the echo on the screen said
   * "typed", so nestclaw waited for an answer that could not come.
   */
  async submit(name: string, text: string): Promise<void> {
    const buffer = `nestclaw-${name}`;
    await this.run(['load-buffer', '-b', buffer, '-'], undefined, text);
    await new Promise<void>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', SUBMIT, 'nestclaw-submit', this.socket, buffer, pane(name)], {
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: minimalEnv(),
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`tmux paste-buffer/send-keys: ${stderr.trim() || `exited with ${code ?? signal}`}`));
      });
    });
  }

  /** tmux key names (`Enter`, `Escape`, `Up`) or literal characters (`y`, `1`), each sent as one key. */
  async keys(name: string, keys: string[]): Promise<void> {
    for (const [i, k] of keys.entries()) {
      // A CLI redraws its menu after each arrow; an Enter in the same burst can be lost (Gemini CLI's is).
      if (i > 0) await new Promise((r) => setTimeout(r, KEY_GAP_MS));
      await this.run(['send-keys', '-t', pane(name), ...(k.length === 1 ? ['-l', k] : [k])]);
    }
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

/** `set -a` exports every assignment the file makes; the file and its directory are gone before the CLI starts. */
/**
 * Paste the buffer (bracketed, then deleted), a pause, then Enter: `submit`. $1 socket, $2 buffer, $3 pane.
 * The pause: Gemini CLI takes an Enter that comes within 40 ms of a paste as a newline in it (a guard
 * against pasted text submitting itself), so the message would sit in its input box unsent.
 */
const SUBMIT = 'tmux -u -L "$1" paste-buffer -p -d -b "$2" -t "$3" && sleep 0.25 && exec tmux -u -L "$1" send-keys -t "$3" Enter';
const LAUNCH = 'set -a && . "$1" && set +a && rm -rf -- "$2" && shift 2 && exec "$@"';
const launcher = (file: string, dir: string) => ['/bin/sh', '-c', LAUNCH, 'nestclaw-cli', file, dir];

/** `NAME='value'` lines for sh; names are checked by the config schema, values single-quoted (`'` as `'\''`). */
function envFile(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `${k}='${v.replaceAll("'", "'\\''")}'\n`)
    .join('');
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
