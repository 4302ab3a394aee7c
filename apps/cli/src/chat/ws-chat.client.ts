import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';

export interface TurnListener {
  onStarted?(sessionId: string): void;
  onToken?(text: string): void;
  onToolCall?(name: string, input: unknown): void;
  onToolResult?(name: string, output: string, isError: boolean): void;
  /** The turn is paused until the call is approved or denied (here, elsewhere) or expires. */
  onApprovalRequired?(approvalId: string, tool: string, input: unknown): void;
}

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export type TurnOutcome = { ok: true; sessionId: string; reply: string; usage: TurnUsage } | { ok: false; code: string; message: string };

export interface RunningTurn {
  id: string;
  outcome: Promise<TurnOutcome>;
}

/** Why the socket could not be opened: not listening, or it answered the upgrade with an error. */
export class GatewayConnectError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Server frames, as sent by apps/gateway/src/ws/chat.ws-gateway.ts. */
type ServerFrame =
  | { type: 'started'; id: string; sessionId: string }
  | { type: 'token'; id: string; text: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; output: string; isError: boolean }
  | { type: 'approval_required'; id: string; approvalId: string; tool: string; input: unknown }
  | { type: 'done'; id: string; sessionId: string; reply: string; usage: TurnUsage }
  | { type: 'error'; id: string | null; code: string; message: string };

interface Pending {
  listener: TurnListener;
  resolve(outcome: TurnOutcome): void;
}

/** A client of the gateway's `/ws` protocol: chat and cancel frames out, turn events in. */
export class WsChatClient {
  private readonly pending = new Map<string, Pending>();
  /** Called when the gateway closes the socket (not when we do). */
  onClosed?: () => void;
  private closing = false;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.receive(data.toString()));
    ws.on('close', () => {
      this.failAll('connection_closed', 'the gateway closed the connection');
      if (!this.closing) this.onClosed?.();
    });
    ws.on('error', () => undefined); // reported through 'close'
  }

  static connect(url: string, token: string): Promise<WsChatClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, handshakeTimeout: 5000 });
      ws.once('open', () => {
        ws.removeAllListeners('error');
        resolve(new WsChatClient(ws));
      });
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          let message = body;
          try {
            message = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? body;
          } catch {
            // not JSON: show it as is
          }
          reject(new GatewayConnectError(`HTTP ${res.statusCode}: ${message}`.trim(), res.statusCode));
          ws.terminate();
        });
      });
      ws.on('error', (e) => reject(new GatewayConnectError(e.message)));
    });
  }

  chat(message: string, target: { sessionId?: string; agentId?: string }, listener: TurnListener = {}): RunningTurn {
    const id = randomUUID();
    const outcome = new Promise<TurnOutcome>((resolve) => this.pending.set(id, { listener, resolve }));
    this.ws.send(JSON.stringify({ type: 'chat', id, message, ...target }));
    return { id, outcome };
  }

  cancel(id: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: 'cancel', id }));
  }

  close(): void {
    this.closing = true;
    this.ws.close(1000);
  }

  private receive(text: string): void {
    let frame: ServerFrame;
    try {
      frame = JSON.parse(text) as ServerFrame;
    } catch {
      return;
    }
    if (frame.id === null) {
      // The gateway could not read our frame, so it cannot say which turn: fail them all.
      if (frame.type === 'error') this.failAll(frame.code, frame.message);
      return;
    }
    const turn = this.pending.get(frame.id);
    if (!turn) return;
    const l = turn.listener;
    switch (frame.type) {
      case 'started':
        return l.onStarted?.(frame.sessionId);
      case 'token':
        return l.onToken?.(frame.text);
      case 'tool_call':
        return l.onToolCall?.(frame.name, frame.input);
      case 'tool_result':
        return l.onToolResult?.(frame.name, frame.output, frame.isError);
      case 'approval_required':
        return l.onApprovalRequired?.(frame.approvalId, frame.tool, frame.input);
      case 'done':
        this.pending.delete(frame.id);
        return turn.resolve({ ok: true, sessionId: frame.sessionId, reply: frame.reply, usage: frame.usage });
      case 'error':
        this.pending.delete(frame.id);
        return turn.resolve({ ok: false, code: frame.code, message: frame.message });
    }
  }

  private failAll(code: string, message: string): void {
    for (const [id, turn] of this.pending) {
      this.pending.delete(id);
      turn.resolve({ ok: false, code, message });
    }
  }
}
