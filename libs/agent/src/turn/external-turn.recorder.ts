import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
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
    const turnId = randomUUID();
    const opened = await this.turns.openTurn({ ...t, turnId, create: true, historyLimit: 1, replica: this.replicas.id });
    return opened && !('busyWith' in opened) ? turnId : undefined;
  }

  /** The turn an inbound message already has (a restart cut it short), with its answer if it closed with one. */
  linked(inboundKey: string): Promise<LinkedTurn | null> {
    return this.turns.findByInbound(inboundKey);
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
