import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * The hooks each kind is started with, all reporting to the same events file, and none of them ever
 * changing what the CLI decides (they print nothing, or `{}`, and exit 0):
 * - Claude Code: `--settings` with `Stop`, `Notification` and `PreToolUse` hooks (timeouts in seconds).
 * - Gemini CLI: `AfterAgent`, `Notification` and `BeforeTool` hooks in a settings file given as its
 *   system settings (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`; timeouts in milliseconds). Its hooks must print
 *   JSON, hence `--json`. The user's own `~/.gemini/settings.json` is not touched.
 * - Codex: `-c notify=[…]`, the program Codex runs after each turn with the event as its last argument.
 */
export function hookInstall(kind: CliConfig['kind'], dir: string, reporter: Reporter): HookInstall {
  switch (kind) {
    case 'claude-code': {
      const hook = [{ hooks: [{ type: 'command', command: reporter.commandLine, timeout: 10 }] }];
      return { args: ['--settings', JSON.stringify({ hooks: { Stop: hook, Notification: hook, PreToolUse: hook } })], env: {} };
    }
    case 'gemini': {
      const hook = [{ hooks: [{ type: 'command', name: 'nestclaw', command: `${reporter.commandLine} --json`, timeout: 10_000 }] }];
      const file = join(dir, GEMINI_SETTINGS_FILE);
      writeFileSync(file, JSON.stringify({ hooks: { AfterAgent: hook, Notification: hook, BeforeTool: hook } }), { mode: 0o600 });
      return { args: [], env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: file } };
    }
    case 'codex':
      // A TOML inline array of basic strings; JSON's string escapes are TOML's.
      return { args: ['-c', `notify=[${reporter.argv.map((a) => JSON.stringify(a)).join(', ')}]`], env: {} };
    default:
      return { args: [], env: {} };
  }
}
