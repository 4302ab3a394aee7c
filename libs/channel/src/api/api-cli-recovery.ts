import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ExternalTurns } from '@nestclaw/agent';
import { CliBridge } from '@nestclaw/cli-bridge';
import { apiSessionKey } from './api-chat.service';

/**
 * After a restart, the API messages to a coding CLI the gateway was on when it died (`POST /v1/chat`, the
 * WebSocket chat): the CLI kept running in tmux, so its answer is read (the message is never typed twice;
 * one the CLI never got is typed now) and closes the message's turn, once. The client's request died with
 * the gateway; it finds the answer in the session's transcript (`GET /v1/sessions/:id/messages`). The
 * message was authorised when it was accepted, so the resumed exchange drives the CLI as the owner would.
 */
@Injectable()
export class ApiCliRecovery implements OnApplicationBootstrap {
  private readonly logger = new Logger('CliBridge');

  constructor(
    private readonly bridge: CliBridge,
    private readonly turns: ExternalTurns,
  ) {}

  onApplicationBootstrap(): void {
    // After every bootstrap hook: the bridge's bindings are loaded by its own.
    setImmediate(() => {
      for (const m of this.bridge.unfinished(apiSessionKey(''))) {
        this.resume(m.sessionKey, m.inboundKey).catch((e: Error) =>
          this.logger.warn(`could not resume the CLI message of ${m.sessionKey} after the restart: ${e.message}`),
        );
      }
    });
  }

  private async resume(sessionKey: string, inboundKey: string): Promise<void> {
    const linked = await this.turns.linked(inboundKey);
    if (!linked || linked.reply !== null) return this.bridge.settled(sessionKey);
    this.logger.log(`resuming the CLI message of ${sessionKey} the restart cut short`);
    const caller = { channel: 'token', senderId: 'owner', sessionKey, isOwner: true };
    const reply = await this.bridge.send({
      caller,
      text: linked.content,
      sessionId: linked.sessionId,
      turnId: linked.turnId,
      inboundKey,
      recovered: true,
      onApproval: () => undefined,
    });
    await this.turns.close(linked.sessionId, linked.turnId, reply, true, 'api', caller.senderId);
  }
}
