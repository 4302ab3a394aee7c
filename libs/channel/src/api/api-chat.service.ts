import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AgentEvent, AgentService, ExternalTurns, TurnInput, TurnOptions, TurnResult } from '@nestclaw/agent';
import { CliBridge, CliCaller } from '@nestclaw/cli-bridge';
import { KeyedQueue, NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import type { Principal } from '@nestclaw/security';
import { parseCommand } from '../routing/command-parser';

const NO_USAGE = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

/** A `/cli` or `/keys` command, as the bridge takes it. */
interface CliCommand {
  name: 'cli' | 'keys';
  args: string[];
  prefix: string;
}

/** What an API session is bound by in `cli_bindings` (a chat's session key starts with `agent:`, never with this). */
export const apiSessionKey = (sessionId: string) => `api:${sessionId}`;

/** The inbound key of an API message to a CLI (`api-cli:<uuid>`): its turn is found by it after a restart. */
export const API_INBOUND_PREFIX = 'api-cli:';

/**
 * The gateway's chat (`POST /v1/chat`, the WebSocket `chat` frame) as the chats route it: `/cli` and `/keys`,
 * and every message of a session bound to a coding CLI, go to the CLI bridge; everything else is the agent's
 * turn, decided by an in-memory lookup (no statement added to a plain turn). The caller is its token: the
 * owner and admin-scoped tokens may drive any CLI, another token only one whose `allow_from` lists
 * `token:<its id>`; anyone else is refused with `forbidden` before anything is recorded. A CLI exchange
 * and a command are turns of the session (ExternalTurns: transcript and conversation log, the bridge's
 * audit rows), the CLI's questions come out as `approval_required` events (decided through the approvals
 * API), and messages of one session go to its CLI one at a time in arrival order. A client that goes
 * away does not stop the CLI: the exchange runs to its end and its answer is kept in the transcript.
 */
@Injectable()
export class ApiChat {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly agent: AgentService,
    private readonly bridge: CliBridge,
    private readonly turns: ExternalTurns,
    private readonly config: ConfigService,
  ) {}

  async run(input: TurnInput, principal: Principal, options: TurnOptions = {}): Promise<TurnResult> {
    const parsed = parseCommand(input.message, this.config.get().channels.command_prefix);
    const command: CliCommand | undefined =
      parsed && (parsed.name === 'cli' || parsed.name === 'keys')
        ? { name: parsed.name, args: parsed.args, prefix: parsed.prefix }
        : undefined;
    if (!command && !(input.sessionId && this.bridge.boundCli(apiSessionKey(input.sessionId)))) return this.agent.run(input, options);
    const sessionId = input.sessionId ?? randomUUID();
    const caller: CliCaller = {
      channel: 'token',
      senderId: principal.id,
      sessionKey: apiSessionKey(sessionId),
      isOwner: principal.scopes.includes('admin'),
    };
    const refusal = this.bridge.refusal(caller, command);
    if (refusal) throw new NestclawError('forbidden', refusal);
    // A command answers at once (`/keys ctrl-c` must not wait behind the message it interrupts).
    if (command) return this.exchange(input, sessionId, caller, options, command);
    return this.queue.run(sessionId, () => this.exchange(input, sessionId, caller, options));
  }

  private async exchange(
    input: TurnInput,
    sessionId: string,
    caller: CliCaller,
    options: TurnOptions,
    command?: CliCommand,
  ): Promise<TurnResult> {
    const endpointId = input.endpointId ?? caller.senderId;
    // Names the turn in the bridge's in-flight mark: a restart that cuts the exchange short finds it by this (ApiCliRecovery).
    const inboundKey = command ? undefined : `${API_INBOUND_PREFIX}${randomUUID()}`;
    const turnId = await this.turns.openFor({
      sessionId,
      agentId: input.agentId ?? 'default',
      channel: input.channel,
      endpointId,
      content: input.message,
      inboundKey,
      principalId: input.principalId,
      // As for the agent's turns: a named session must exist (and be this token's); none starts one.
      create: !input.sessionId,
    });
    const emit = (e: AgentEvent) => options.onEvent?.(e);
    emit({ type: 'started', sessionId, turnId });
    let reply: string;
    try {
      reply = command
        ? await this.bridge.command(command.name, command.args, caller, command.prefix)
        : await this.bridge.send({
            caller,
            text: input.message,
            sessionId,
            turnId,
            inboundKey,
            onApproval: (a) =>
              emit({
                type: 'approval_required',
                approvalId: a.id,
                tool: a.tool,
                input: a.input,
                shapesEveryConversation: false,
                reason: null,
                ownerOnly: false,
              }),
          });
    } catch (e) {
      const failed = `The CLI bridge could not do that (${(e as Error).message}).`;
      await this.turns.close(sessionId, turnId, failed, false, input.channel, endpointId).catch(() => undefined);
      throw e;
    }
    await this.turns.close(sessionId, turnId, reply, true, input.channel, endpointId);
    emit({ type: 'done', sessionId, turnId, reply, usage: NO_USAGE, interrupted: false });
    return { sessionId, turnId, reply, usage: NO_USAGE, interrupted: false };
  }
}
