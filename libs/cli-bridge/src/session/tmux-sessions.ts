import { Injectable } from '@nestjs/common';
import type { CliConfig } from '@nestclaw/config';
import { CliHooks } from '../hooks/cli-hooks';
import { TmuxDriver } from '../tmux/tmux.driver';
import { launchCommand } from './launch-command';
import { runAsUser } from './run-as-user';
import type { SessionDriver } from './session-driver';

const READY_WAIT_MS = 10_000;
const READY_QUIET_MS = 300;

/** A CLI in a tmux session on nestclaw's socket (`mode: tmux`, the default): any program with a terminal. */
@Injectable()
export class TmuxSessions implements SessionDriver {
  constructor(
    private readonly tmux: TmuxDriver,
    private readonly hooks: CliHooks,
  ) {}

  async launch(name: string, cli: string, cfg: CliConfig, dir: string): Promise<void> {
    // The user first: the hooks' folder is made theirs.
    const runAs = cfg.user ? await runAsUser(cli, cfg.user) : undefined;
    const started = await launchCommand(cli, cfg, this.hooks.prepare(name, cfg, runAs), runAs);
    await this.tmux.create({ name, dir, ...started });
    await this.settled(name);
  }

  alive(name: string): Promise<boolean> {
    return this.tmux.alive(name);
  }

  async stop(name: string): Promise<void> {
    await this.tmux.kill(name);
    this.hooks.remove(name);
  }

  running(): Promise<string[]> {
    return this.tmux.list();
  }

  /**
   * Until the CLI has drawn its first screen and held it still for a moment (at most 10 s): text sent
   * before it reads its terminal would be echoed by the terminal, not the CLI, and its answer misread.
   */
  private async settled(name: string): Promise<void> {
    const deadline = Date.now() + READY_WAIT_MS;
    let last = '';
    let sameSince = Date.now();
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      if (!(await this.tmux.alive(name))) return;
      const now = (await this.tmux.capture(name).catch(() => '')).trim();
      if (now !== last) [last, sameSince] = [now, Date.now()];
      else if (now && Date.now() - sameSince >= READY_QUIET_MS) return;
    }
  }
}
