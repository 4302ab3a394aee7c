import { Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, OnGatewayConnection, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import { Observable, of, Subscriber } from 'rxjs';
import { DatabaseNotifications } from '@nestclaw/db';
import type { WebSocket } from 'ws';
import { NestclawError } from '@nestclaw/common';
import { activeTraceId, SPAN, traceRoot } from '@nestclaw/observability';
import { AgentEvent, AgentService } from '@nestclaw/agent';
import { ApiChat } from '@nestclaw/channel';
import type { Principal } from '@nestclaw/security';
import { sessionScopeOf } from '../auth/principal-scope';
import { TokenRateLimit } from '../auth/token-rate-limit';
import { toErrorResponse } from '../errors/error-body';
import { LiveAnswers } from './live-answers';
import { CancelFrame, ChatFrame, INVALID_FRAME, InvalidFrame, SubscribeFrame, SubscribeSessionsFrame } from './ws-frames';
import { upgradePrincipal } from './ws-upgrade.auth';

type ServerFrame = Record<string, unknown> & { type: string; id: string | null };

interface Connection {
  principal: Principal;
  endpointId: string | undefined;
  /** Chats running on this socket, by the client's id. */
  running: Map<string, AbortController>;
  /** Session subscriptions on this socket, by the client's id: each ends its frame stream. */
  watching: Map<string, () => void>;
  /** Chats sent with `keepRunning`: closing the socket leaves their turns running (their frames go nowhere). */
  detached: Set<string>;
}

/** Concurrent chats one socket may run; more are refused with an error frame. */
const MAX_RUNS_PER_SOCKET = 4;
/** Sessions one socket may watch at once. */
const MAX_SUBSCRIPTIONS_PER_SOCKET = 16;

/**
 * `GET /ws`: authenticated at the HTTP upgrade (see WsUpgradeAuth and GatewayWsAdapter), then JSON
 * frames: chat/cancel/subscribe/subscribe_sessions/unsubscribe in; started/token/tool_call/tool_result/done/error and
 * session_event out (a subscription to a session whose answer this replica streams also gets that
 * answer, LiveAnswers). Several chats may run on one socket; each chat is an Observable of frames, so
 * closing the socket unsubscribes and cancels it. Across replicas (issue 24): a cancel naming a
 * session stops its turn on whichever replica runs it, and a subscription sees the session's events
 * from every replica (ids from LISTEN/NOTIFY; details are the client's to read over HTTP). A chat frame
 * takes POST /v1/chat's path (ApiChat): `/cli` commands and a CLI-bound session's messages go to the CLI.
 */
@WebSocketGateway({ path: '/ws' })
export class ChatWsGateway implements OnGatewayConnection {
  private readonly logger = new Logger('WebSocket');
  private readonly connections = new WeakMap<WebSocket, Connection>();

  constructor(
    private readonly agent: AgentService,
    private readonly chats: ApiChat,
    private readonly rateLimit: TokenRateLimit,
    private readonly notifications: DatabaseNotifications,
    private readonly live: LiveAnswers,
  ) {}

  handleConnection(client: WebSocket, req: IncomingMessage): void {
    const principal = upgradePrincipal(req);
    // Unreachable through the adapter (it verifies every upgrade), but never serve an unknown caller.
    if (!principal) return client.close(1008, 'unauthorized');
    const running = new Map<string, AbortController>();
    const watching = new Map<string, () => void>();
    const detached = new Set<string>();
    this.connections.set(client, { principal, endpointId: req.socket.remoteAddress, running, watching, detached });
    client.on('close', () => {
      running.forEach((c, id) => {
        if (!detached.has(id)) c.abort();
      });
      watching.forEach((stop) => stop());
    });
  }

  @SubscribeMessage(INVALID_FRAME)
  invalid(@MessageBody() frame: InvalidFrame): ServerFrame {
    return { type: 'error', id: frame.id, code: 'invalid_request', message: frame.message };
  }

  @SubscribeMessage('cancel')
  async cancel(@ConnectedSocket() client: WebSocket, @MessageBody() frame: CancelFrame): Promise<ServerFrame | undefined> {
    const conn = this.connections.get(client);
    if (!frame.sessionId) {
      conn?.running.get(frame.id)?.abort();
      return undefined;
    }
    if (!conn?.principal.scopes.includes('admin'))
      return { type: 'error', id: frame.id, code: 'forbidden', message: 'Cancelling a session by its id needs the admin scope' };
    await this.agent.cancel({ sessionId: frame.sessionId });
    return { type: 'cancelling', id: frame.id, sessionId: frame.sessionId };
  }

  @SubscribeMessage('subscribe')
  subscribe(@ConnectedSocket() client: WebSocket, @MessageBody() frame: SubscribeFrame): Observable<ServerFrame> {
    return this.openWatch(client, frame.id, 'Watching a session', (out) => {
      const stopListening = this.notifications.subscribe('session_events', (e) => {
        if (e.sessionId === frame.sessionId) out.next({ ...e, type: 'session_event', id: frame.id });
      });
      out.next({ type: 'subscribed', id: frame.id, sessionId: frame.sessionId });
      // A turn this replica is streaming: what was streamed so far, then the rest as it comes.
      const stopFollowing = this.live.watch(frame.sessionId, (f) => out.next({ ...f, id: frame.id }));
      return () => {
        stopListening();
        stopFollowing();
      };
    });
  }

  @SubscribeMessage('unsubscribe')
  unsubscribe(@ConnectedSocket() client: WebSocket, @MessageBody() frame: { id: string }): ServerFrame {
    this.connections.get(client)?.watching.get(frame.id)?.();
    return { type: 'unsubscribed', id: frame.id };
  }

  /**
   * Every session's events (ids and kinds only, as `subscribe` gives for one): a list of sessions
   * re-reads itself over HTTP when a turn starts or finishes anywhere. Counts against the same limit.
   */
  @SubscribeMessage('subscribe_sessions')
  subscribeSessions(@ConnectedSocket() client: WebSocket, @MessageBody() frame: SubscribeSessionsFrame): Observable<ServerFrame> {
    return this.openWatch(client, frame.id, 'Watching sessions', (out) => {
      const stopListening = this.notifications.subscribe('session_events', (e) => out.next({ ...e, type: 'session_event', id: frame.id }));
      out.next({ type: 'subscribed', id: frame.id });
      return stopListening;
    });
  }

  /**
   * A subscription of this socket (admin), under the client's id: at most MAX_SUBSCRIPTIONS_PER_SOCKET,
   * ended by `unsubscribe`, by the client going away or by the socket closing. `listen` starts it and
   * returns what stops it.
   */
  private openWatch(
    client: WebSocket,
    id: string,
    what: string,
    listen: (out: Subscriber<ServerFrame>) => () => void,
  ): Observable<ServerFrame> {
    const conn = this.connections.get(client);
    const refuse = (code: string, message: string) => of<ServerFrame>({ type: 'error', id, code, message });
    if (!conn?.principal.scopes.includes('admin')) return refuse('forbidden', `${what} needs the admin scope`);
    if (conn.watching.has(id) || conn.running.has(id))
      return refuse('invalid_request', `A subscription or chat with id "${id}" is already open`);
    if (conn.watching.size >= MAX_SUBSCRIPTIONS_PER_SOCKET)
      return refuse('rate_limited', `At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions may be open at once on one socket`);
    return new Observable<ServerFrame>((out) => {
      const stopListening = listen(out);
      const stop = () => {
        stopListening();
        conn.watching.delete(id);
        out.complete();
      };
      conn.watching.set(id, stop);
      return () => {
        stopListening();
        if (conn.watching.get(id) === stop) conn.watching.delete(id);
      };
    });
  }

  @SubscribeMessage('chat')
  chat(@ConnectedSocket() client: WebSocket, @MessageBody() frame: ChatFrame): Observable<ServerFrame> {
    const conn = this.connections.get(client);
    const refuse = (code: string, message: string) => of<ServerFrame>({ type: 'error', id: frame.id, code, message });
    if (!conn) return refuse('unauthorized', 'Connection not authenticated');
    if (conn.running.has(frame.id)) return refuse('invalid_request', `A chat with id "${frame.id}" is already running`);
    if (conn.running.size >= MAX_RUNS_PER_SOCKET)
      return refuse('rate_limited', `At most ${MAX_RUNS_PER_SOCKET} chats may run at once on one socket`);
    const controller = new AbortController();
    conn.running.set(frame.id, controller);
    if (frame.keepRunning) conn.detached.add(frame.id);
    return new Observable<ServerFrame>((out) => {
      const id = frame.id;
      // Kept for a page that re-attaches to this turn (subscribe) after a reload.
      const answer = this.live.recorder();
      // Never let the Observable error: that would end the adapter's subscription for the whole socket.
      // The slot is taken before the (database-counted, so asynchronous) rate limit answers: a burst of
      // frames cannot slip past MAX_RUNS_PER_SOCKET while their hits are being counted.
      this.rateLimit
        .hit(conn.principal)
        .then((waitMs) => {
          if (waitMs > 0)
            throw new NestclawError('rate_limited', `Too many requests for this token; retry in ${Math.ceil(waitMs / 1000)} s`);
        })
        .then(() =>
          // One trace per chat frame, like an HTTP request; its id goes out in the `started` frame.
          traceRoot(`${SPAN.wsMessage} chat`, { 'nestclaw.channel': 'ws' }, () =>
            this.chats.run(
              {
                message: frame.message,
                sessionId: frame.sessionId,
                agentId: frame.agentId,
                channel: 'ws',
                endpointId: conn.endpointId,
                principalId: sessionScopeOf(conn.principal),
              },
              conn.principal,
              {
                signal: controller.signal,
                stream: true,
                onEvent: (e) => {
                  out.next(toFrame(id, e));
                  answer.see(e);
                },
              },
            ),
          ),
        )
        .catch((e: unknown) => {
          const err = controller.signal.aborted && !(e instanceof NestclawError) ? new NestclawError('cancelled', 'Cancelled') : e;
          const { error } = toErrorResponse(err).body;
          out.next({ type: 'error', id, code: error.code, message: error.message });
        })
        .finally(() => {
          answer.end();
          conn.running.delete(id);
          conn.detached.delete(id);
          out.complete();
        });
      // The socket closed (the adapter unsubscribes): stop the turn, unless it was sent to keep running.
      return () => {
        if (conn.running.get(id) === controller && !conn.detached.has(id)) controller.abort();
      };
    });
  }

  /** Logged once here so the adapter's per-socket listener can stay quiet. */
  afterInit(): void {
    this.logger.debug('ready on /ws');
  }
}

function toFrame(id: string, e: AgentEvent): ServerFrame {
  switch (e.type) {
    case 'started':
      return { type: 'started', id, sessionId: e.sessionId, ...(activeTraceId() ? { traceId: activeTraceId() } : {}) };
    case 'token':
      return { type: 'token', id, text: e.text };
    case 'tool_call':
      return { type: 'tool_call', id, callId: e.id, name: e.name, input: e.input };
    case 'tool_result':
      return { type: 'tool_result', id, callId: e.id, name: e.name, output: e.output, isError: e.isError };
    case 'approval_required':
      // The event is the frame: its fields plus the chat's id.
      return { ...e, id };
    case 'done':
      return { type: 'done', id, sessionId: e.sessionId, reply: e.reply, usage: e.usage };
  }
}
