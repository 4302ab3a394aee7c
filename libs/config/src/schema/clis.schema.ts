import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { duration, secret } from './field-types';

/**
 * Kinds of coding CLI the bridge knows. Every kind is driven over tmux and read from the screen; a kind
 * with hooks also says when it finished and what it answered: `claude-code` (its Stop hook), `gemini`
 * (its AfterAgent hook), `codex` (its notify program). `opencode` and `generic` are screen-only.
 */
export const CLI_KINDS = ['generic', 'claude-code', 'gemini', 'codex', 'opencode'] as const;

/**
 * How the bridge talks to a CLI: `tmux` (the terminal, any CLI) or `acp` (the Agent Client Protocol
 * over the program's stdin and stdout: Gemini CLI with `--acp`, Claude Code through its ACP adapter).
 */
export const CLI_MODES = ['tmux', 'acp'] as const;

/** Names that become part of a tmux session name (`nestclaw-<cli>-<n>`): no dots, colons or spaces. */
const cliName = /^[a-z][a-z0-9_-]{0,31}$/;

const cliSchema = z.strictObject({
  kind: z.enum(CLI_KINDS).default('generic'),
  mode: z.enum(CLI_MODES).default('tmux'),
  /** The program, run without a shell (arguments are passed as a list). */
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /**
   * Environment of the CLI besides a path, a home and a UTF-8 locale (nothing else of the gateway's
   * leaks in): e.g. `ANTHROPIC_BASE_URL`, an API key (kept out of logs and /doctor), or `HOME` for a
   * CLI whose login and settings live in another home.
   */
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'environment variable names are letters, digits and _' }),
      secret(z.string()),
    )
    .default({}),
  /**
   * The operating-system user the CLI runs as (a name or a uid), so driving it from chat is shell access
   * with that user's rights, not the gateway's: the gateway must run as root to switch (it drops to this
   * user, without a way back, for the CLI only). Unset: the gateway's own user. `HOME` becomes the user's
   * home unless `env.HOME` says otherwise.
   */
  user: z
    .string()
    .regex(/^([a-z_][a-z0-9_-]{0,31}|\d{1,10})$/, { message: 'a user name (lower-case letters, digits, _ and -) or a uid' })
    .optional(),
  /** Working directories a chat may choose; the first is the default. Driving a CLI is shell access there. */
  allowed_dirs: z
    .array(z.string().refine((d) => isAbsolute(d), { message: 'must be an absolute path' }))
    .min(1, { message: 'list at least one working directory' }),
  /** Chat identities (`telegram:123`) besides the owner who may drive it; paired chat users may not by default. */
  allow_from: z.array(z.string().min(1)).default([]),
  /** Quiet screen time that means the CLI finished answering. */
  done_after: duration.default(1500),
  /** Silence while a message is in flight that is reported to the chat. */
  watchdog: duration.default(300_000),
});

/** Coding CLIs driven from chat over tmux (issue 26, docs/adr/0017-cli-bridge.md): name → how to run it. */
export const clisSchema = z
  .record(z.string().regex(cliName, { message: 'CLI names are lower-case letters, digits, - and _' }), cliSchema)
  .default({});

export type CliConfig = z.output<typeof cliSchema>;
