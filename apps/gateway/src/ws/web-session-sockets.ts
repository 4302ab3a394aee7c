import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { OWNER, WebSessionEnded, WebSessionEvents } from '@nestclaw/security';
import { upgradeWebSession } from './ws-upgrade.auth';

interface Opened {
  sessionId: string;
  tokenId: string | null;
}

/**
 * The WebSockets opened with a web session cookie on this replica, closed when their session ends
 * (sign-out, revoked token) wherever that happened: `web_session_ended` reaches every replica. Sockets
 * opened with a bearer token are not tracked here.
 */
@Injectable()
export class WebSessionSockets implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WebSocket');
  private readonly open = new Map<WebSocket, Opened>();
  private unsubscribe?: () => void;

  constructor(private readonly events: WebSessionEvents) {}

  onModuleInit(): void {
    this.unsubscribe = this.events.onEnded((e) => this.close(e));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** Called for every new socket (GatewayWsAdapter); remembers those a cookie opened. */
  opened(ws: WebSocket, req: IncomingMessage): void {
    const session = upgradeWebSession(req);
    if (!session) return;
    const tokenId = session.principal === OWNER ? null : session.principal.id;
    this.open.set(ws, { sessionId: session.id, tokenId });
    ws.once('close', () => this.open.delete(ws));
  }

  private close(ended: WebSessionEnded): void {
    for (const [ws, s] of this.open) {
      if (s.sessionId !== ended.sessionId && (ended.tokenId === null || s.tokenId !== ended.tokenId)) continue;
      this.open.delete(ws);
      // The error frame tells the page why before the close; 1008: policy violation.
      ws.send(JSON.stringify({ type: 'error', id: null, code: 'unauthorized', message: 'Your web session ended: sign in again' }));
      ws.close(1008, 'session_ended');
      this.logger.debug(`closed a WebSocket of web session ${s.sessionId}`);
    }
  }
}
