import { Injectable } from '@nestjs/common';
import { normalize } from 'node:path';
import { CliConfig, ConfigService } from '@nestclaw/config';
import { CliBindings } from './binding/cli-bindings';
import { CliCaller, identityOf, REFUSAL } from './cli-caller';
import { CliSessions } from './session/cli-sessions';
import { CliStartError } from './session/cli-start-error';
import { NAMED_KEYS, TmuxDriver } from './tmux/tmux.driver';

/**
 * `/cli list | use <name> [dir] | status | stop | restart | exit` and `/keys …`: the reply text for
 * each. Everything but `list` needs someone allowed to drive the CLI in question.
 */
@Injectable()
export class CliCommands {
  constructor(
    private readonly config: ConfigService,
    private readonly bindings: CliBindings,
    private readonly sessions: CliSessions,
    private readonly tmux: TmuxDriver,
  ) {}

  mayDrive(cli: string, caller: CliCaller): boolean {
    return caller.isOwner || (this.clis()[cli]?.allow_from ?? []).includes(identityOf(caller));
  }

  /**
   * Whether `caller` would get the refusal for this command (without one: for a message to the bound
   * CLI), decided as `cli`, `keys` and `CliBridge.send` decide it: the CLI named by `/cli use`, else the
   * one the chat is bound to; `/cli list`, usage lines and an unknown CLI are nobody's refusal.
   */
  refuses(caller: CliCaller, command?: { name: 'cli' | 'keys'; args: string[] }): boolean {
    const [sub = 'status', name] = command?.name === 'cli' ? command.args : [];
    if (command?.name === 'cli' && sub === 'use') return !!name && !!this.clis()[name] && !this.mayDrive(name, caller);
    if (command?.name === 'cli' && !['status', 'stop', 'restart', 'exit'].includes(sub)) return false;
    const bound = this.bindings.get(caller.sessionKey);
    return !!bound && !this.mayDrive(bound.cli, caller);
  }

  async cli(args: string[], caller: CliCaller, prefix: string): Promise<string> {
    const [sub = 'status', name, dir] = args;
    const usage = `Usage: ${prefix}cli list | use <name> [dir] | status | stop | restart | exit`;
    if (sub === 'list') return this.list(caller);
    if (sub === 'use') return name ? this.use(name, dir, caller) : usage;
    const b = this.bindings.get(caller.sessionKey);
    if (!['status', 'stop', 'restart', 'exit'].includes(sub)) return usage;
    if (!b) return `This chat is not bound to a CLI. ${prefix}cli use <name> binds it.`;
    if (!this.mayDrive(b.cli, caller)) return REFUSAL;
    const alive = await this.sessions.alive(b.tmuxSession);
    const where = sessionKind(this.clis()[b.cli]);
    if (sub === 'status')
      return `Bound to ${b.cli} in ${b.workDir}: ${where} ${b.tmuxSession} (${alive ? 'running' : `not running, send ${prefix}cli restart`}).`;
    if (sub === 'stop') {
      await this.sessions.stop(b.tmuxSession);
      return `Stopped ${b.cli} (${b.tmuxSession}). The chat stays bound; ${prefix}cli restart starts it again.`;
    }
    if (sub === 'exit') {
      await this.sessions.stop(b.tmuxSession);
      await this.bindings.unbind(caller.sessionKey);
      return `Unbound from ${b.cli} (its session ended). Your messages go to the assistant again.`;
    }
    const cfg = this.clis()[b.cli];
    if (!cfg) return `${b.cli} is no longer configured. ${prefix}cli exit unbinds this chat.`;
    try {
      await this.sessions.restart(b.tmuxSession, b.cli, cfg, b.workDir);
    } catch (e) {
      return startFailure(e);
    }
    return `Restarted ${b.cli} in ${b.workDir} (${where} ${b.tmuxSession}).`;
  }

  async keys(args: string[], caller: CliCaller, prefix: string): Promise<string> {
    const b = this.bindings.get(caller.sessionKey);
    if (!b) return `This chat is not bound to a CLI. ${prefix}cli use <name> binds it.`;
    if (!this.mayDrive(b.cli, caller)) return REFUSAL;
    const keys = args.map((a) => (/^[1-9]$/.test(a) ? a : NAMED_KEYS[a.toLowerCase()]));
    if (!args.length || keys.some((k) => !k))
      return `Usage: ${prefix}keys <${[...Object.keys(NAMED_KEYS), '1-9'].join('|')}> … (sent in order)`;
    if (!(await this.sessions.alive(b.tmuxSession))) return `${b.cli} is not running. Send ${prefix}cli restart.`;
    if (this.clis()[b.cli]?.mode === 'acp') return this.acpKeys(b.cli, b.tmuxSession, args, prefix);
    await this.tmux.keys(b.tmuxSession, keys);
    return `Sent ${args.join(' ')} to ${b.cli}.`;
  }

  /** An ACP session has no keyboard: ctrl-c or esc cancels its turn over the protocol, other keys mean nothing to it. */
  private acpKeys(cli: string, session: string, args: string[], prefix: string): string {
    if (args.length !== 1 || !['ctrl-c', 'esc'].includes(args[0].toLowerCase()))
      return `${cli} speaks ACP, not a terminal: only ${prefix}keys ctrl-c (or esc) applies, and it cancels its current turn.`;
    this.sessions.cancelTurn(session);
    return `Sent ${args[0]} to ${cli} (its current turn is cancelled).`;
  }

  private list(caller: CliCaller): string {
    const clis = Object.entries(this.clis());
    if (!clis.length) return 'No CLIs are configured (`clis:` in the config file).';
    const bound = this.bindings.get(caller.sessionKey);
    return clis
      .map(([name, c]) => {
        const here = bound?.cli === name ? ` — this chat, ${bound.tmuxSession}` : '';
        return `${name} (${c.kind}: ${c.command}) in ${c.allowed_dirs.join(', ')}${this.mayDrive(name, caller) ? '' : ' [not for you]'}${here}`;
      })
      .join('\n');
  }

  private async use(name: string, dirArg: string | undefined, caller: CliCaller): Promise<string> {
    const cfg = this.clis()[name];
    if (!cfg) return `No CLI named "${name}". Configured: ${Object.keys(this.clis()).join(', ') || 'none'}.`;
    if (!this.mayDrive(name, caller)) return REFUSAL;
    const dir = dirArg ? normalize(dirArg).replace(/(.)\/$/, '$1') : cfg.allowed_dirs[0];
    if (!cfg.allowed_dirs.map((d) => normalize(d).replace(/(.)\/$/, '$1')).includes(dir))
      return `${name} may only run in: ${cfg.allowed_dirs.join(', ')}.`;
    const current = this.bindings.get(caller.sessionKey);
    let session: string;
    if (current?.cli === name && current.workDir === dir && (await this.sessions.alive(current.tmuxSession))) {
      session = current.tmuxSession;
    } else {
      if (current) await this.sessions.stop(current.tmuxSession);
      try {
        session = await this.sessions.start(
          name,
          cfg,
          dir,
          this.bindings.all().map((b) => b.tmuxSession),
        );
      } catch (e) {
        return startFailure(e);
      }
    }
    await this.bindings.bind({ sessionKey: caller.sessionKey, cli: name, workDir: dir, tmuxSession: session, boundBy: identityOf(caller) });
    return `Bound to ${name} in ${dir} (${sessionKind(cfg)} ${session}). Your messages now go to it as typed; /cli exit returns to the assistant.`;
  }

  private clis(): Record<string, CliConfig> {
    return this.config.get().clis;
  }
}

/** What a chat's session with the CLI is, as the replies name it. */
const sessionKind = (cfg: CliConfig | undefined) => (cfg?.mode === 'acp' ? 'ACP session' : 'tmux session');

/** A CLI that cannot start (its configured user, an ACP handshake) is told to the chat as is (it says what to change); anything else is thrown. */
function startFailure(e: unknown): string {
  if (e instanceof CliStartError) return e.message;
  throw e;
}
