import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { KeyedQueue } from '@nestclaw/common';
import { CliConfig, ConfigService } from '@nestclaw/config';
import { Approval, AuditService } from '@nestclaw/tool';
import { CliBindings } from './binding/cli-bindings';
import { CliCaller, identityOf, REFUSAL } from './cli-caller';
import { AcpExchangeRunner } from './acp/acp-exchange.runner';
import { CliCommands } from './cli-commands';
import { ExchangeRunner } from './exchange/exchange.runner';
import type { ExchangeResult, ExchangeScope } from './exchange/exchange.types';

/** What a chat message routed to a bound CLI needs besides its text. */
export interface CliMessage {
  caller: CliCaller;
  text: string;
  /** The chat's transcript session (approvals and audit rows name it). */
  sessionId: string;
  /** The transcript turn this message is (its approvals name it); a fresh id when there is none. */
  turnId?: string;
  signal?: AbortSignal;
  onApproval: (a: Approval) => void;
  /** What the CLI is doing while it works (plain text, replaced each time): shown as the chat's preview. */
  onProgress?: (text: string) => void;
  /**
   * The chat message's inbound key: kept on the binding while the CLI is on it, so that after a crash
   * (`recovered`) the bridge reads the answer of a message already typed instead of typing it again.
   */
  inboundKey?: string;
  recovered?: boolean;
}

/**
 * The bridge as the chat layer sees it: is this chat bound (and is its CLI busy), the `/cli` and
 * `/keys` commands, and a message sent to the CLI with its answer. One message at a time per tmux
 * session, in arrival order; different sessions run side by side. Every input and every answer is
 * an audit row (`cli.input`, `cli.output`).
 */
@Injectable()
export class CliBridge {
  private readonly queue = new KeyedQueue();
  /** Messages sent or waiting, per tmux session: more than none means the next one is told it waits. */
  private readonly pending = new Map<string, number>();

  constructor(
    private readonly config: ConfigService,
    private readonly bindings: CliBindings,
    private readonly commands: CliCommands,
    private readonly runner: ExchangeRunner,
    private readonly audit: AuditService,
    private readonly acp: AcpExchangeRunner,
  ) {}

  /** In memory: routing asks this for every message. */
  boundCli(sessionKey: string): { cli: string; busy: boolean } | undefined {
    const b = this.bindings.get(sessionKey);
    return b && { cli: b.cli, busy: (this.pending.get(b.tmuxSession) ?? 0) > 0 };
  }

  /**
   * Messages a restart cut short in chats whose session key starts with `prefix` (the API's `api:`): the
   * bridge had marked them in flight (typed, or about to be) when the gateway died. Their inbound key
   * names the turn they belong to; `send` with `recovered` reads the answer of one already typed.
   */
  unfinished(prefix: string): { sessionKey: string; inboundKey: string }[] {
    return this.bindings
      .all()
      .filter((b) => b.inFlight && b.sessionKey.startsWith(prefix))
      .map((b) => ({ sessionKey: b.sessionKey, inboundKey: b.inFlight!.key }));
  }

  /** Drops the in-flight mark of a message that needs no more work (its turn already has an answer, or none). */
  async settled(sessionKey: string): Promise<void> {
    await this.bindings.setInFlight(sessionKey, null);
  }

  /** Messages sent to a tmux session and not yet answered (`nestclaw cli list`). */
  inFlight(tmuxSession: string): number {
    return this.pending.get(tmuxSession) ?? 0;
  }

  /**
   * The refusal `caller` would get for this command, or for a message to the bound CLI without one;
   * undefined when allowed. The API asks first and answers 403 before anything is recorded; a chat
   * gets the same text as its reply from `command` and `send`.
   */
  refusal(caller: CliCaller, command?: { name: 'cli' | 'keys'; args: string[] }): string | undefined {
    return this.commands.refuses(caller, command) ? REFUSAL : undefined;
  }

  command(name: 'cli' | 'keys', args: string[], caller: CliCaller, prefix: string): Promise<string> {
    return name === 'cli' ? this.commands.cli(args, caller, prefix) : this.commands.keys(args, caller, prefix);
  }

  /** The reply for the chat: the CLI's answer, or what stopped it (silence, a session that ended). */
  async send(m: CliMessage): Promise<string> {
    const b = this.bindings.get(m.caller.sessionKey);
    if (!b) return 'This chat is no longer bound to a CLI.';
    if (!this.commands.mayDrive(b.cli, m.caller)) return REFUSAL;
    const cfg = this.config.get().clis[b.cli];
    if (!cfg) return `${b.cli} is no longer configured. /cli exit unbinds this chat.`;
    const key = b.tmuxSession;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    try {
      return await this.queue.run(key, async () => {
        const exchangeId = m.turnId ?? randomUUID();
        const actor = identityOf(m.caller);
        const target = `${b.cli} ${b.tmuxSession}`;
        // Typed before a crash (its mark was written first): read its answer, never type it twice.
        const typed = m.recovered && m.inboundKey ? this.bindings.get(m.caller.sessionKey)?.inFlight : undefined;
        const resumed = typed?.key === m.inboundKey ? typed : undefined;
        await this.audit.record({
          actor,
          action: 'cli.input',
          target,
          outcome: resumed ? 'resumed' : 'sent',
          sessionId: m.sessionId,
          detail: { exchangeId, text: m.text },
        });
        const started = Date.now();
        const scope: ExchangeScope = {
          cli: b.cli,
          sessionId: m.sessionId,
          exchangeId,
          channel: m.caller.channel,
          endpointId: m.caller.senderId,
          signal: m.signal,
          onApproval: m.onApproval,
          onProgress: m.onProgress,
        };
        const inboundKey = m.inboundKey;
        const result = await this.exchange(key, cfg, m, scope, resumed?.mark);
        if (inboundKey) await this.bindings.setInFlight(m.caller.sessionKey, null);
        const reply = replyFor(b.cli, result);
        await this.audit.record({
          actor: `cli:${b.cli}`,
          action: 'cli.output',
          target,
          outcome: result.kind,
          durationMs: Date.now() - started,
          sessionId: m.sessionId,
          detail: { exchangeId, text: reply },
        });
        return reply;
      });
    } finally {
      const left = (this.pending.get(key) ?? 1) - 1;
      if (left > 0) this.pending.set(key, left);
      else this.pending.delete(key);
    }
  }

  /**
   * The message through the CLI's mode. tmux: typed after its in-flight mark is written, or only read when
   * a restart found it typed (`resumedMark`). ACP: sent as a prompt, never marked, since its process dies
   * with the gateway and a restarted one has no turn to resume.
   */
  private exchange(session: string, cfg: CliConfig, m: CliMessage, scope: ExchangeScope, resumedMark?: number): Promise<ExchangeResult> {
    if (cfg.mode === 'acp') return this.acp.run(session, cfg, m.text, scope);
    if (resumedMark !== undefined) return this.runner.resume(session, cfg, m.text, resumedMark, scope);
    const inboundKey = m.inboundKey;
    const markTyping = inboundKey ? (mark: number) => this.bindings.setInFlight(m.caller.sessionKey, { key: inboundKey, mark }) : undefined;
    return this.runner.run(session, cfg, m.text, scope, markTyping);
  }
}

function replyFor(cli: string, r: ExchangeResult): string {
  switch (r.kind) {
    case 'answer':
      return r.text;
    case 'silent':
      return `⚠ ${cli} has shown nothing new for ${Math.round(r.silentMs / 1000)} s. It may be stuck: /keys ctrl-c interrupts it, /cli restart starts it again.`;
    case 'dead':
      return `✖ ${cli} is not running any more (it exited or crashed). Send /cli restart to start it again.`;
  }
}
