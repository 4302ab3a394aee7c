import { Logger } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { GatewayWebSocket } from './gateway-websocket';
import { parseClientFrame } from './ws-frames';
import type { UpgradeVerdict } from './ws-upgrade.auth';

export interface GatewayWsOptions {
  /** `server.body_limit`: a larger frame closes the socket with 1009. */
  maxPayload: number;
  /** `server.ws_ping_interval`: a client that misses one pong is terminated. */
  pingIntervalMs: number;
  /** Decides the upgrade before any WebSocket exists (token, scope, rate limit). */
  verify(req: IncomingMessage): Promise<UpgradeVerdict>;
  /** Each socket once open, with the upgrade request it was verified on (WebSessionSockets). */
  opened?(ws: WebSocket, req: IncomingMessage): void;
}

const logger = new Logger('WebSocket');

/**
 * `@nestjs/platform-ws` on the Fastify server, with what a public endpoint needs that the stock
 * adapter leaves out: authentication before the upgrade (`verifyClient`), refusals and unknown paths
 * answered in the JSON error shape, frames parsed once into the gateway's events (bad ones become an
 * `invalid_frame` event instead of being dropped), ping/pong keep-alive, and error listeners on
 * every socket so no client can crash the process.
 */
export class GatewayWsAdapter extends WsAdapter {
  constructor(
    server: Server,
    private readonly options: GatewayWsOptions,
  ) {
    super(server, { messageParser: (data) => parseClientFrame(data) });
  }

  override create(port: number, options: Record<string, unknown> & { path?: string } = {}): WebSocketServer {
    const wss = super.create(port, {
      ...options,
      maxPayload: this.options.maxPayload,
      WebSocket: GatewayWebSocket,
      verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, status?: number, message?: string, headers?: object) => void) => {
        this.options.verify(info.req).then(
          (verdict) => {
            if (verdict.ok) return done(true);
            const headers: Record<string, string> = { 'Content-Type': 'application/json' };
            if (verdict.retryAfterSeconds !== undefined) headers['Retry-After'] = String(verdict.retryAfterSeconds);
            done(false, verdict.status, errorJson(verdict.code, verdict.message), headers);
          },
          (e: unknown) => {
            logger.warn(`upgrade check failed: ${(e as Error).message}`);
            done(false, 503, errorJson('database_unavailable', 'Cannot check the token now; retry shortly'), {
              'Content-Type': 'application/json',
            });
          },
        );
      },
    }) as WebSocketServer;
    // Malformed handshakes (no key, wrong version, bad method) in the JSON error shape too.
    wss.on('wsClientError', (err: Error, socket: Duplex) =>
      refuse(socket, 400, 'invalid_request', `Bad WebSocket handshake: ${err.message}`),
    );
    if (this.options.opened) wss.on('connection', (ws: WebSocket, req: IncomingMessage) => this.options.opened?.(ws, req));
    this.keepAlive(wss);
    return wss;
  }

  /** Every socket gets an error listener: ws reports oversize or invalid frames as 'error' events. */
  override bindErrorHandler(server: WebSocketServer): WebSocketServer {
    server.on('connection', (ws: WebSocket) => ws.on('error', (e) => logger.debug(`client socket error: ${e.message}`)));
    server.on('error', (e) => logger.error(`WebSocket server error: ${e.message}`));
    return server;
  }

  /** Like the stock adapter, but an upgrade to any other path gets a JSON 404 instead of a reset. */
  protected override ensureHttpServerExists(port: number, httpServer?: Server): Server | undefined {
    if (this.httpServersRegistry.has(port) || !httpServer) return super.ensureHttpServerExists(port, httpServer);
    this.httpServersRegistry.set(port, httpServer);
    httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node drops its own error listener from upgraded sockets: a reset must not become uncaught.
      socket.on('error', () => socket.destroy());
      const path = (req.url ?? '/').split('?')[0];
      const target = (this.wsServersRegistry.get(port) ?? []).find((s: { path: string }) => s.path === path) as WebSocketServer | undefined;
      if (!target) return refuse(socket, 404, 'not_found', 'No WebSocket endpoint here; use /ws');
      target.handleUpgrade(req, socket, head, (ws) => target.emit('connection', ws, req));
    });
    return httpServer;
  }

  private keepAlive(wss: WebSocketServer): void {
    const alive = new WeakSet<WebSocket>();
    wss.on('connection', (ws: WebSocket) => {
      alive.add(ws);
      ws.on('pong', () => alive.add(ws));
    });
    const timer = setInterval(() => {
      for (const ws of wss.clients) {
        if (!alive.has(ws)) {
          ws.terminate();
          continue;
        }
        alive.delete(ws);
        ws.ping();
      }
    }, this.options.pingIntervalMs);
    timer.unref();
    wss.on('close', () => clearInterval(timer));
  }
}

function errorJson(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

function refuse(socket: Duplex, status: number, code: string, message: string): void {
  if (!socket.writable) return void socket.destroy();
  const body = errorJson(code, message);
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
