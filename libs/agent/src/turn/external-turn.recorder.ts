import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NestclawError } from '@nestclaw/common';
import { ReplicaRegistry } from '@nestclaw/db';
import type { LinkedTurn } from '../session/session.types';
import { TurnRepository } from '../session/turn.repository';

export interface ExternalTurnStart {
  sessionId: string;
  agentId: string;
  channel: string;
  endpointId: string;
  content: string;
  /** The inbound message it answers (one turn per message, as for the agent's turns). */
  inboundKey?: string;
  /** A paired API token's id: the session must be its own (absent for the owner and for chats). */
  principalId?: string;
  /** Create the session when it does not exist (default; an API client naming a session must name one that exists). */
  create?: boolean;
}

/**
 * Turns answered by something other than the agent's model — a coding CLI driven through the CLI
 * bridge: the user message when it is sent, the answer when it comes back, in the session's transcript
 * and conversation log like any turn (the same two statements a turn opens and closes with; no model
 * call, so no ledger row). The session's hold is taken for the turn, so an agent turn never interleaves.
 */
@Injectable()
export class ExternalTurns {
  constructor(
    private readonly turns: TurnRepository,
    private readonly replicas: ReplicaRegistry,
  ) {}

  /** The turn's id, or undefined when the session is busy with a turn elsewhere (then nothing was written). */
  async open(t: ExternalTurnStart): Promise<string | undefined> {
    const opened = await this.attempt(t);
    return opened && !('busyWith' in opened) ? opened.turnId : undefined;
  }

  /**
   * For an API client (`POST /v1/chat`, the WebSocket chat), which gets an error where a chat's message is
   * only logged: `session_not_found` when the session does not exist (and `create` is false) or is another
   * token's, as for the agent's turns; `conflict` when another replica's turn holds the session.
   */
  async openFor(t: ExternalTurnStart): Promise<string> {
    const opened = await this.attempt(t);
    if (!opened) throw new NestclawError('session_not_found', `Session "${t.sessionId}" does not exist; omit sessionId to start a new one`);
    if ('busyWith' in opened)
      throw new NestclawError(
        'conflict',
        `Session "${t.sessionId}" is busy with a turn on replica ${opened.busyWith}; send the message again later`,
      );
    return opened.turnId;
  }

  /** The turn an inbound message already has (a restart cut it short), with its answer if it closed with one. */
  linked(inboundKey: string): Promise<LinkedTurn | null> {
    return this.turns.findByInbound(inboundKey);
  }

  private async attempt(t: ExternalTurnStart): Promise<{ turnId: string } | { busyWith: string } | null> {
    const turnId = randomUUID();
    const { create = true, ...start } = t;
    const opened = await this.turns.openTurn({ ...start, turnId, create, historyLimit: 1, replica: this.replicas.id });
    if (!opened) return null;
    return 'busyWith' in opened ? opened : { turnId };
  }

  async close(sessionId: string, turnId: string, reply: string, ok: boolean, channel: string, endpointId: string): Promise<void> {
    const status = ok ? 'ok' : 'error';
    await this.turns.recordProgress({
      sessionId,
      turnId,
      messages: [{ role: 'assistant', content: reply, status }],
      calls: [],
      close: { status, reply, channel, endpointId },
    });
  }
}
