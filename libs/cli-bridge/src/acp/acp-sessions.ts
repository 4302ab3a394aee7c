import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { CliConfig } from '@nestclaw/config';
import { launchCommand } from '../session/launch-command';
import type { SessionDriver } from '../session/session-driver';
import { AcpProcess } from './acp-process';

/**
 * CLIs driven over the Agent Client Protocol (`mode: acp`): one child process of the gateway per
 * session, as the configured user when there is one, with the minimal environment. Unlike a tmux
 * session it cannot outlive the gateway: every process is ended when the gateway shuts down, and a
 * chat bound to one before a restart is told to send `/cli restart`.
 */
@Injectable()
export class AcpSessions implements SessionDriver, OnApplicationShutdown {
  private readonly logger = new Logger('CliBridge');
  private readonly processes = new Map<string, AcpProcess>();

  async launch(name: string, cli: string, cfg: CliConfig, dir: string): Promise<void> {
    await this.stop(name);
    const process = await AcpProcess.start({ cli, dir, ...(await launchCommand(cli, cfg)) });
    this.processes.set(name, process);
    void process.exited.then(() => {
      if (this.processes.get(name) === process) this.logger.warn(`${name} (${cli}, ACP) exited`);
    });
  }

  /** The process under `name`, running or exited; undefined when none was started in this gateway. */
  get(name: string): AcpProcess | undefined {
    return this.processes.get(name);
  }

  async alive(name: string): Promise<boolean> {
    return this.processes.get(name)?.alive ?? false;
  }

  async stop(name: string): Promise<void> {
    const process = this.processes.get(name);
    this.processes.delete(name);
    await process?.kill();
  }

  async running(): Promise<string[]> {
    return [...this.processes].filter(([, p]) => p.alive).map(([name]) => name);
  }

  cancelTurn(name: string): boolean {
    const process = this.processes.get(name);
    process?.cancel();
    return !!process;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((name) => this.stop(name)));
  }
}
