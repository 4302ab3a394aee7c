import type { CliConfig } from '@nestclaw/config';

/**
 * How one mode of CLI session is started and ended (`clis.<name>.mode`): a pane in nestclaw's tmux
 * (`TmuxSessions`) or a child process speaking the Agent Client Protocol (`AcpSessions`). Sessions of
 * both share one naming scheme (`nestclaw-<cli>-<n>`), so a chat's binding names either.
 */
export interface SessionDriver {
  /** Starts the CLI under `name` in `dir`; resolves once it is ready for a message. */
  launch(name: string, cli: string, cfg: CliConfig, dir: string): Promise<void>;
  alive(name: string): Promise<boolean>;
  /** Ends it (a name this driver does not run is ignored). */
  stop(name: string): Promise<void>;
  /** Names of the sessions it runs now. */
  running(): Promise<string[]>;
}
