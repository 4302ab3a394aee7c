import type { CliConfig } from '@nestclaw/config';
import { minimalEnv } from '../tmux/tmux.driver';
import { runAsUser } from './run-as-user';

/** A CLI's program, its arguments and its whole environment, as either mode starts it. */
export interface LaunchCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * How `cli` is started in either mode: as its configured user (the setpriv prefix, `HOME` that user's
 * unless its `env` says otherwise), with the minimal environment plus its own `env`, `NESTCLAW_CLI`,
 * and what the mode adds (tmux: its hooks' arguments and environment).
 */
export async function launchCommand(
  cli: string,
  cfg: CliConfig,
  extra: { args?: string[]; env?: Record<string, string> } = {},
  runAs?: Awaited<ReturnType<typeof runAsUser>>,
): Promise<LaunchCommand> {
  const user = runAs ?? (cfg.user ? await runAsUser(cli, cfg.user) : undefined);
  const [command, ...args] = [...(user?.prefix ?? []), cfg.command, ...cfg.args, ...(extra.args ?? [])];
  const home: Record<string, string> = user ? { HOME: user.home } : {};
  return { command, args, env: minimalEnv({ ...home, ...cfg.env, ...extra.env, NESTCLAW_CLI: cli }) };
}
