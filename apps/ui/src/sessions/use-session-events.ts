import { useEffect, useRef } from 'preact/hooks';
import { frameId, GatewaySocket, ServerFrame } from '../chat/gateway-socket';

/** A `session_event` frame: ids and a kind, never content (the rest is read over HTTP). */
export interface SessionEvent {
  kind: 'turn_started' | 'turn_finished' | 'approval_pending' | 'approval_decided';
  sessionId: string;
}

/**
 * Every session's events from every replica over the gateway's WebSocket (`subscribe_sessions`,
 * admin). `onSubscribed` runs each time the subscription opens, the first time and after a dropped
 * socket came back: events sent meanwhile are lost, so the caller reads again then.
 */
export function useSessionEvents(enabled: boolean, onEvent: (e: SessionEvent) => void, onSubscribed: () => void): void {
  // The latest callbacks, so the socket opened once still calls the current render's.
  const handlers = useRef({ onEvent, onSubscribed });
  handlers.current = { onEvent, onSubscribed };
  useEffect(() => {
    if (!enabled) return;
    const socket = new GatewaySocket(() => undefined);
    const subscribe = () => {
      const id = frameId('sessions');
      socket.send({ type: 'subscribe_sessions', id }, (frame: ServerFrame) => {
        if (frame.type === 'subscribed') handlers.current.onSubscribed();
        else if (frame.type === 'session_event') handlers.current.onEvent(frame as unknown as SessionEvent);
        else if (frame.type === 'error') {
          socket.forget(id);
          // The socket reopens by itself; the subscription is sent again once it has.
          if (frame.code === 'disconnected') subscribe();
        }
      });
    };
    subscribe();
    return () => socket.close();
  }, [enabled]);
}
