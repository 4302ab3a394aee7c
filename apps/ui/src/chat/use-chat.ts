import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { t } from '../i18n/i18n';
import { frameId, GatewaySocket, ServerFrame, SocketStatus } from './gateway-socket';
import { applyFrame, ApprovalStatus, fromStored, Item, setApprovalStatus, turnRunning } from './transcript';
import { transcriptPage } from './transcript-pages';

/** Survives a reload of this tab (not other tabs): the conversation to show again. */
const SESSION_KEY = 'nestclaw.chat.sessionId';

interface PendingApproval {
  id: string;
  sessionId: string;
  tool: string;
  input: unknown;
  ownerOnly: boolean;
  shapesEveryConversation: boolean;
  reason: string | null;
}

/** Opens `sessionId` in the chat page next time it mounts (the Sessions page's "continue in chat"). */
export function continueSession(sessionId: string): void {
  sessionStorage.setItem(SESSION_KEY, sessionId);
}

const errorText = (code: string, message: string) => (code === 'cancelled' ? t('chat.cancelled') : t('chat.error', { message }));

/**
 * The chat page's state: one socket, the transcript, the running chat. On load the tab's last
 * session comes back from the database; when its turn is still running, the page subscribes to the
 * session (admin), shows the answer streamed so far and the rest as it comes, and reloads the
 * transcript when the turn finishes or an approval is asked for.
 */
export function useChat(canWatch: boolean) {
  const [items, setItems] = useState<Item[]>([]);
  const [sessionId, setSessionId] = useState<string | null>(() => sessionStorage.getItem(SESSION_KEY));
  const [status, setStatus] = useState<SocketStatus>('connecting');
  const [runningId, setRunningId] = useState<string | null>(null);
  const [watching, setWatching] = useState(false);
  /** Where the page before the loaded ones ends; null when the whole session is loaded. */
  const [earlierBefore, setEarlierBefore] = useState<number | null>(null);
  const socket = useRef<GatewaySocket>();

  useEffect(() => {
    const s = new GatewaySocket(setStatus);
    socket.current = s;
    return () => s.close();
  }, []);

  const remember = (id: string | null) => {
    setSessionId(id);
    if (id) sessionStorage.setItem(SESSION_KEY, id);
    else sessionStorage.removeItem(SESSION_KEY);
  };

  /** The stored transcript's newest page, plus any approval still waiting in this session; true when a turn runs. */
  const reload = async (id: string): Promise<boolean> => {
    const { messages, earlierBefore } = await transcriptPage(id, 'end');
    setEarlierBefore(earlierBefore);
    const running = turnRunning(messages);
    let next = fromStored(messages);
    if (running) {
      const { approvals } = await api<{ approvals: PendingApproval[] }>('/v1/approvals?status=pending').catch(() => ({ approvals: [] }));
      for (const a of approvals.filter((x) => x.sessionId === id))
        next = [...next, { ...a, kind: 'approval', key: `a-${a.id}`, approvalId: a.id, status: 'pending' }];
    }
    setItems(next);
    return running;
  };

  // Coming back to the tab's session: its transcript, and the running turn if there is one.
  useEffect(() => {
    if (!sessionId || !canWatch) return;
    let cancelled = false;
    let subscription: string | undefined;
    reload(sessionId)
      .then((running) => {
        if (cancelled || !running) return;
        setWatching(true);
        const id = frameId('watch');
        subscription = id;
        socket.current?.send({ type: 'subscribe', id, sessionId }, (frame: ServerFrame) => {
          // The answer so far and the rest live, when this replica streams it (LiveAnswers in the gateway).
          if (frame.type === 'token' || frame.type === 'tool_call' || frame.type === 'tool_result')
            return setItems((now) => applyFrame(now, frame, errorText));
          if (frame.type !== 'session_event') return;
          if (frame.kind === 'approval_pending' || frame.kind === 'approval_decided') void reload(sessionId);
          if (frame.kind === 'turn_finished') {
            setWatching(false);
            socket.current?.send({ type: 'unsubscribe', id });
            socket.current?.forget(id);
            void reload(sessionId);
          }
        });
      })
      .catch((e: unknown) => {
        if (!cancelled) setItems([{ kind: 'notice', key: 'load', tone: 'error', text: t('error.generic', { message: messageOf(e) }) }]);
      });
    return () => {
      cancelled = true;
      setWatching(false);
      if (subscription) {
        socket.current?.send({ type: 'unsubscribe', id: subscription });
        socket.current?.forget(subscription);
      }
    };
    // Only on first load: a session this page starts is already on screen.
  }, []);

  const send = (message: string, agentId: string | undefined) => {
    const id = frameId('chat');
    setRunningId(id);
    setItems((now) => [...now, { kind: 'user', key: `${id}-user`, text: message }]);
    socket.current?.send(
      // keepRunning: a reload (which closes this socket) must not stop the turn; the next page re-attaches to it.
      { type: 'chat', id, message, keepRunning: true, ...(sessionId ? { sessionId } : {}), ...(agentId && !sessionId ? { agentId } : {}) },
      (frame) => {
        if (frame.type === 'started' && typeof frame.sessionId === 'string') remember(frame.sessionId);
        setItems((now) => applyFrame(now, frame, errorText));
        if (frame.type === 'done' || frame.type === 'error') {
          setRunningId(null);
          socket.current?.forget(id);
        }
      },
    );
  };

  const loadEarlier = async () => {
    if (!sessionId || earlierBefore === null) return;
    const page = await transcriptPage(sessionId, earlierBefore);
    setEarlierBefore(page.earlierBefore);
    setItems((now) => [...fromStored(page.messages), ...now]);
  };

  return {
    items,
    /** Absent when the transcript is loaded from its start. */
    loadEarlier: earlierBefore === null ? undefined : loadEarlier,
    sessionId,
    status,
    running: runningId !== null || watching,
    /** A turn started before this page loaded (a reload mid-answer) is running. */
    reattached: watching,
    send,
    // Our own chat by its frame id; a turn we only watch (after a reload) by its session (admin).
    stop: () => {
      if (runningId) socket.current?.send({ type: 'cancel', id: runningId });
      else if (watching && sessionId) socket.current?.send({ type: 'cancel', id: frameId('cancel'), sessionId });
    },
    newSession: () => {
      remember(null);
      setEarlierBefore(null);
      setItems([]);
    },
    approvalDecided: (approvalId: string, decided: ApprovalStatus) => setItems((now) => setApprovalStatus(now, approvalId, decided)),
  };
}
