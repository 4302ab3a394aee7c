import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { TmuxDriver } from '../tmux/tmux.driver';
import { CliBinding, CliBindingRepository, InFlight } from './cli-binding.repository';

/**
 * Which chats drive a CLI, kept in memory and written through to `cli_bindings`. Loaded once at
 * start-up, when each bound tmux session is looked up by name on nestclaw's socket: a live one is
 * re-attached as it is (the CLI kept running while the gateway was down), a gone one is reported
 * when the chat next writes. Routing reads this copy, so it costs a plain chat message nothing.
 * One gateway process owns the bindings (see docs/adr/0017-cli-bridge.md for replicas).
 */
@Injectable()
export class CliBindings implements OnApplicationBootstrap {
  private readonly logger = new Logger('CliBridge');
  private readonly byKey = new Map<string, CliBinding>();

  constructor(
    private readonly repo: CliBindingRepository,
    private readonly tmux: TmuxDriver,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const rows = await this.repo.all();
    const running = new Set(await this.tmux.list());
    for (const b of rows) this.byKey.set(b.sessionKey, b);
    const alive = rows.filter((b) => running.has(b.tmuxSession)).length;
    if (rows.length) this.logger.log(`re-attached ${alive} of ${rows.length} bound CLI session(s) by name`);
  }

  get(sessionKey: string): CliBinding | undefined {
    return this.byKey.get(sessionKey);
  }

  all(): CliBinding[] {
    return [...this.byKey.values()];
  }

  async bind(b: CliBinding): Promise<void> {
    await this.repo.bind(b);
    this.byKey.set(b.sessionKey, b);
  }

  async unbind(sessionKey: string): Promise<void> {
    await this.repo.unbind(sessionKey);
    this.byKey.delete(sessionKey);
  }

  /** Written through before a message is typed into the CLI, cleared once it is answered. */
  async setInFlight(sessionKey: string, inFlight: InFlight | null): Promise<void> {
    const b = this.byKey.get(sessionKey);
    if (!b) return;
    await this.repo.setInFlight(sessionKey, inFlight);
    this.byKey.set(sessionKey, { ...b, inFlight: inFlight ?? undefined });
  }
}
