import { WebSocket } from 'ws';

/** Close codes ws uses for frames it refuses, and the error frame sent just before each. */
const REFUSED_FRAMES: Record<number, { code: string; message: string }> = {
  1009: { code: 'payload_too_large', message: 'Frame larger than server.body_limit; the socket is closed' },
  1007: { code: 'invalid_request', message: 'Text frame is not valid UTF-8; the socket is closed' },
};

/**
 * The server side of one client socket. When ws refuses a frame (too large: 1009, invalid UTF-8:
 * 1007) it closes the socket itself; this sends the client a JSON error frame first and puts a
 * short reason on the close, so the client learns why instead of seeing a bare close code.
 */
export class GatewayWebSocket extends WebSocket {
  override close(code?: number, data?: string | Buffer): void {
    const refused = code !== undefined && data === undefined ? REFUSED_FRAMES[code] : undefined;
    if (refused && this.readyState === WebSocket.OPEN) {
      this.send(JSON.stringify({ type: 'error', id: null, code: refused.code, message: refused.message }));
      return super.close(code, refused.code);
    }
    super.close(code, data);
  }
}
