import { Injectable } from '@nestjs/common';
import type { CliConfig } from '@nestclaw/config';
import { AcpSessions } from '../acp/acp-sessions';
import type { SessionDriver } from './session-driver';
import { TmuxSessions } from './tmux-sessions';

/** The session names nestclaw gives a CLI, in either mode: `nestclaw-<cli>-<n>`. */
export const sessionPrefix = (cli: string) => `nestclaw-${cli}-`;

/**
 * Starting and ending a CLI's sessions, whichever way it is driven: the config's `mode` picks the
 * driver when one starts (`driverFor`, the one place that choice is made); a session found by name is
 * asked of both (names are unique across them, and a name one driver does not run is not alive there).
 */
@Injectable()
export class CliSessions {
  constructor(
    private readonly tmux: TmuxSessions,
    private readonly acp: AcpSessions,
  ) {}

  /** A new session for `cli` in `dir`, numbered after every session of that CLI that exists or is bound (`taken`). */
  async start(cli: string, cfg: CliConfig, dir: string, taken: string[]): Promise<string> {
    const prefix = sessionPrefix(cli);
    const used = [...(await this.running()), ...taken]
      .filter((n) => n.startsWith(prefix))
      .map((n) => Number(n.slice(prefix.length)))
      .filter(Number.isInteger);
    const name = `${prefix}${Math.max(0, ...used) + 1}`;
    await this.driverFor(cfg).launch(name, cli, cfg, dir);
    return name;
  }

  /** The same name again, after the CLI under it ended (crashed, stopped) or is ended here. */
  async restart(name: string, cli: string, cfg: CliConfig, dir: string): Promise<void> {
    await this.stop(name);
    await this.driverFor(cfg).launch(name, cli, cfg, dir);
  }

  async alive(name: string): Promise<boolean> {
    return (await this.acp.alive(name)) || (await this.tmux.alive(name));
  }

  async stop(name: string): Promise<void> {
    await this.acp.stop(name);
    await this.tmux.stop(name);
  }

  async running(): Promise<string[]> {
    return [...(await this.tmux.running()), ...(await this.acp.running())];
  }

  /**
   * Asks the CLI to stop what it is doing without ending it (`/keys ctrl-c` for an ACP session, which
   * has no keyboard: its turn is cancelled over the protocol). False when `name` is no ACP session.
   */
  cancelTurn(name: string): boolean {
    return this.acp.cancelTurn(name);
  }

  private driverFor(cfg: CliConfig): SessionDriver {
    return cfg.mode === 'acp' ? this.acp : this.tmux;
  }
}
