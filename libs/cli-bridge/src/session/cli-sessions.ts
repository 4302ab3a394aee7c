import { Injectable } from '@nestjs/common';
import type { CliConfig } from '@nestclaw/config';
import { minimalEnv, TmuxDriver } from '../tmux/tmux.driver';

/** The tmux session names nestclaw gives a CLI: `nestclaw-<cli>-<n>`. */
export const sessionPrefix = (cli: string) => `nestclaw-${cli}-`;

/** Starting and ending a CLI's tmux sessions on nestclaw's socket. */
@Injectable()
export class CliSessions {
  constructor(private readonly tmux: TmuxDriver) {}

  /** A new session for `cli` in `dir`, numbered after every session of that CLI that exists or is bound (`taken`). */
  async start(cli: string, cfg: CliConfig, dir: string, taken: string[]): Promise<string> {
    const prefix = sessionPrefix(cli);
    const used = [...(await this.tmux.list()), ...taken]
      .filter((n) => n.startsWith(prefix))
      .map((n) => Number(n.slice(prefix.length)))
      .filter(Number.isInteger);
    const name = `${prefix}${Math.max(0, ...used) + 1}`;
    await this.launch(name, cli, cfg, dir);
    return name;
  }

  /** The same name again, after the CLI under it ended (crashed, stopped) or is ended here. */
  async restart(name: string, cli: string, cfg: CliConfig, dir: string): Promise<void> {
    await this.tmux.kill(name);
    await this.launch(name, cli, cfg, dir);
  }

  alive(name: string): Promise<boolean> {
    return this.tmux.alive(name);
  }

  stop(name: string): Promise<void> {
    return this.tmux.kill(name);
  }

  running(): Promise<string[]> {
    return this.tmux.list();
  }

  private launch(name: string, cli: string, cfg: CliConfig, dir: string): Promise<void> {
    return this.tmux.create({ name, dir, command: cfg.command, args: cfg.args, env: minimalEnv({ NESTCLAW_CLI: cli }) });
  }
}
