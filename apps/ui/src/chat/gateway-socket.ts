/** A frame from `/ws` (apps/gateway/src/ws/chat.ws-gateway.ts): its type, the client's id, and the rest. */
export type ServerFrame = { type: string; id: string | null } & Record<string, unknown>;
export type SocketStatus = 'connecting' | 'open' | 'offline';

const RECONNECT_BASE_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/**
 * One WebSocket to the gateway's `/ws`, authenticated by the session cookie at the upgrade (the
 * gateway checks Origin too). Frames are routed to the handler registered under their id. A dropped
 * connection is reopened with backoff; frames sent meanwhile wait for it.
 */
export class GatewaySocket {
  private ws: WebSocket | undefined;
  private readonly handlers = new Map<string, (frame: ServerFrame) => void>();
  private readonly outbox: string[] = [];
  private delay = RECONNECT_BASE_MS;
  private timer: number | undefined;
  private closed = false;
  status: SocketStatus = 'connecting';

  constructor(private readonly onStatus: (status: SocketStatus) => void) {
    this.open();
  }

  /** Sends `frame`; every answer carrying its id goes to `handler` until `forget(frame.id)`. */
  send(frame: { type: string; id: string } & Record<string, unknown>, handler?: (frame: ServerFrame) => void): void {
    if (handler) this.handlers.set(frame.id, handler);
    const text = JSON.stringify(frame);
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.outbox.push(text);
  }

  forget(id: string): void {
    this.handlers.delete(id);
  }

  close(): void {
    this.closed = true;
    window.clearTimeout(this.timer);
    this.ws?.close(1000, 'page closed');
  }

  private open(): void {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.ws = ws;
    this.setStatus('connecting');
    ws.onopen = () => {
      this.delay = RECONNECT_BASE_MS;
      this.setStatus('open');
      for (const text of this.outbox.splice(0)) ws.send(text);
    };
    ws.onmessage = (event) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(event.data)) as ServerFrame;
      } catch {
        return;
      }
      if (frame.id) this.handlers.get(frame.id)?.(frame);
    };
    ws.onclose = () => {
      if (this.closed) return;
      this.setStatus('offline');
      // The gateway ends a socket's chats with it: their handlers hear an error frame of our own.
      for (const [id, handler] of [...this.handlers]) handler({ type: 'error', id, code: 'disconnected', message: 'connection lost' });
      this.timer = window.setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, RECONNECT_MAX_MS);
    };
  }

  private setStatus(status: SocketStatus): void {
    this.status = status;
    this.onStatus(status);
  }
}

let counter = 0;
/** A frame id unique on this page. */
export const frameId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
