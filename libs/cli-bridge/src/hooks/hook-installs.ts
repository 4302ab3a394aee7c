import { rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CliConfig } from '@nestclaw/config';

/** What starting a CLI with nestclaw's hooks adds: arguments, environment, and files it wrote in the session's folder. */
export interface HookInstall {
  args: string[];
  env: Record<string, string>;
}

/** Kinds whose own hooks report the end of an answer; the others are read from the screen only. */
export const HOOKED_KINDS: ReadonlySet<CliConfig['kind']> = new Set(['claude-code', 'gemini', 'codex']);

/** How a hook runs our reporter: a shell command line (Claude Code, Gemini CLI) or an argument list (Codex). */
export interface Reporter {
  /** `node bin/nestclaw-cli-hook.js <dir>`, each word quoted for a shell. */
  commandLine: string;
  argv: string[];
}

/** Where a Gemini CLI started by the bridge reads its extra settings (its system settings file). */
export const GEMINI_SETTINGS_FILE = 'gemini-settings.json';

/** Set for every CLI the bridge starts: a hook in the CLI's own settings (README) reports there. */
export const HOOK_DIR_ENV = 'NESTCLAW_CLI_HOOK_DIR';

/**
 * Gemini CLI reads a system settings file only when it and every folder above it belong to root and no
 * one else may write them (else it skips the file and says so on its screen). A gateway running as
 * another user, or a home under /tmp, cannot give it one: the owner installs the hooks in the CLI's own
 * settings instead (README), and they report through `NESTCLAW_CLI_HOOK_DIR`.
 */
export function rootOwnedPath(path: string): boolean {
  for (let p = path; ; p = dirname(p)) {
    const st = statSync(p);
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
    if (dirname(p) === p) return true;
  }
}

/**
 * The hooks each kind is started with, all reporting to the same events file, and none of them ever
 * changing what the CLI decides (they print nothing, or `{}`, and exit 0):
 * - Claude Code: `--settings` with `SessionStart`, `Stop`, `Notification` and `PreToolUse` hooks (timeouts in seconds).
 * - Gemini CLI: `SessionStart`, `AfterAgent`, `Notification` and `BeforeTool` hooks in a settings file
 *   given as its system settings (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`; timeouts in milliseconds), when it
 *   would read one (`rootOwnedPath`); its hooks must print JSON, hence `--json`. The user's own
 *   `~/.gemini/settings.json` is never touched.
 * - Codex: `-c notify=[…]`, the program Codex runs after each turn with the event as its last argument.
 */
export function hookInstall(kind: CliConfig['kind'], dir: string, reporter: Reporter, runsAsOther: boolean): HookInstall {
  const env = { [HOOK_DIR_ENV]: dir };
  switch (kind) {
    case 'claude-code': {
      const hook = [{ hooks: [{ type: 'command', command: reporter.commandLine, timeout: 10 }] }];
      const hooks = { SessionStart: hook, Stop: hook, Notification: hook, PreToolUse: hook };
      return { args: ['--settings', JSON.stringify({ hooks })], env };
    }
    case 'gemini': {
      if (runsAsOther) return { args: [], env };
      const hook = [{ hooks: [{ type: 'command', name: 'nestclaw', command: `${reporter.commandLine} --json`, timeout: 10_000 }] }];
      const file = join(dir, GEMINI_SETTINGS_FILE);
      const hooks = { SessionStart: hook, AfterAgent: hook, Notification: hook, BeforeTool: hook };
      writeFileSync(file, JSON.stringify({ hooks }), { mode: 0o600 });
      if (rootOwnedPath(file)) return { args: [], env: { ...env, GEMINI_CLI_SYSTEM_SETTINGS_PATH: file } };
      rmSync(file);
      return { args: [], env };
    }
    case 'codex':
      // A TOML inline array of basic strings; JSON's string escapes are TOML's.
      return { args: ['-c', `notify=[${reporter.argv.map((a) => JSON.stringify(a)).join(', ')}]`], env };
    default:
      return { args: [], env: {} };
  }
}
