import { activeTraceId, SPAN, traceRoot } from '@nestclaw/observability';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { NestclawError } from '@nestclaw/common';
import { AgentService } from '@nestclaw/agent';
import { ApiTokenService, OWNER, PairedTokenService, Principal } from '@nestclaw/security';
import { sessionScopeOf } from '../auth/principal-scope';
import { TokenRateLimit } from '../auth/token-rate-limit';
import { bearerToken } from '../auth/bearer-token';
import { toErrorResponse } from '../errors/error-body';
import { clientFrameSchema } from './ws-frames';

/**
 * `GET /ws`: authenticated at the HTTP upgrade (401 before any frame), then JSON frames:
 * chat/cancel in; started/token/tool_call/tool_result/done/error out. Several chats may run on one
 * socket; closing the socket cancels them.
 */
@Injectable()
export class ChatWsGateway implements BeforeApplicationShutdown {
  private readonly logger = new Logger('WebSocket');
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });

  constructor(
    private readonly agent: AgentService,
    private readonly tokens: ApiTokenService,
    private readonly paired: PairedTokenService,
    private readonly rateLimit: TokenRateLimit,
  ) {}

  /** The owner, or a paired token holding the `chat` scope; null otherwise. */
  private async principalFor(token: string | undefined): Promise<Principal | null> {
    if (!token) return null;
    if (this.tokens.verify(token)) return OWNER;
    const principal = await this.paired.authenticate(token);
    return principal?.scopes.includes('chat') ? principal : null;
  }

  attach(server: Server, maxPayload: number): void {
    this.wss.options.maxPayload = maxPayload;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0];
      // Node removes its own error listener from upgraded sockets: a reset during the async token
      // check must not become an uncaught exception.
      const onError = () => socket.destroy();
      socket.on('error', onError);
      if (path !== '/ws') return reject(socket, 404, 'not_found', 'No WebSocket endpoint here; use /ws');
      this.principalFor(bearerToken(req, true)).then(
        (principal) => {
          if (!principal) {
            return reject(socket, 401, 'unauthorized', 'Missing or invalid token: send "Authorization: Bearer <token>" or ?token=');
          }
          socket.off('error', onError);
          this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, req, principal));
        },
        () => reject(socket, 503, 'database_unavailable', 'Cannot check the token now; retry shortly'),
      );
    });
  }

  private serve(ws: WebSocket, req: IncomingMessage, principal: Principal): void {
    const running = new Map<string, AbortController>();
    const send = (frame: Record<string, unknown>) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
    };
    ws.on('close', () => running.forEach((c) => c.abort()));
    ws.on('message', (data, isBinary) => {
      let frame;
      try {
        if (isBinary) throw new Error('binary frames are not supported');
        frame = clientFrameSchema.parse(JSON.parse(data.toString()));
      } catch (e) {
        const why = e instanceof SyntaxError ? 'frame is not valid JSON' : (e as Error).message;
        return send({ type: 'error', id: null, code: 'invalid_request', message: `Bad frame: ${why}` });
      }
      if (frame.type === 'cancel') {
        running.get(frame.id)?.abort();
        return;
      }
      if (running.has(frame.id))
        return send({ type: 'error', id: frame.id, code: 'invalid_request', message: `A chat with id "${frame.id}" is already running` });
      if (running.size >= MAX_RUNS_PER_SOCKET) {
        return send({
          type: 'error',
          id: frame.id,
          code: 'rate_limited',
          message: `At most ${MAX_RUNS_PER_SOCKET} chats may run at once on one socket`,
        });
      }
      const waitMs = this.rateLimit.hit(principal);
      if (waitMs > 0) {
        return send({
          type: 'error',
          id: frame.id,
          code: 'rate_limited',
          message: `Too many requests for this token; retry in ${Math.ceil(waitMs / 1000)} s`,
        });
      }
      const controller = new AbortController();
      running.set(frame.id, controller);
      const id = frame.id;
      void traceRoot(`${SPAN.wsMessage} chat`, { 'nestclaw.channel': 'ws' }, async () => {
        try {
          await this.agent.run(
            {
              message: frame.message,
              sessionId: frame.sessionId,
              agentId: frame.agentId,
              channel: 'ws',
              endpointId: req.socket.remoteAddress,
              principalId: sessionScopeOf(principal),
            },
            {
              signal: controller.signal,
              stream: true,
              onEvent: (e) => {
                switch (e.type) {
                  case 'started':
                    return send({ type: 'started', id, sessionId: e.sessionId, ...(activeTraceId() ? { traceId: activeTraceId() } : {}) });
                  case 'token':
                    return send({ type: 'token', id, text: e.text });
                  case 'tool_call':
                    return send({ type: 'tool_call', id, callId: e.id, name: e.name, input: e.input });
                  case 'tool_result':
                    return send({ type: 'tool_result', id, callId: e.id, name: e.name, output: e.output, isError: e.isError });
                  case 'approval_required':
                    return send({ type: 'approval_required', id, approvalId: e.approvalId, tool: e.tool, input: e.input });
                  case 'done':
                    return send({ type: 'done', id, sessionId: e.sessionId, reply: e.reply, usage: e.usage });
                }
              },
            },
          );
        } catch (e) {
          const err = controller.signal.aborted && !(e instanceof NestclawError) ? new NestclawError('cancelled', 'Cancelled') : e;
          const { error } = toErrorResponse(err).body;
          send({ type: 'error', id, code: error.code, message: error.message });
        } finally {
          running.delete(id);
        }
      });
    });
  }

  /** Before the HTTP server closes: upgraded sockets would otherwise keep it open. */
  beforeApplicationShutdown(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.logger.debug('closed');
  }
}

/** Concurrent chats one socket may run; more are refused with an error frame. */
const MAX_RUNS_PER_SOCKET = 4;

function reject(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
