import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: string;
  body: string;
}

/**
 * Sends bytes exactly as given (no client-side validation or encoding) and reads the answer until
 * the server closes; for requests fetch() refuses to send (bad percent-encoding, NUL in a header).
 */
export function rawHttp(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer'));
    }, timeoutMs);
    socket.on('data', (c) => {
      chunks.push(c);
      // Keep-alive responses: stop once a complete Content-Length body has arrived.
      const text = Buffer.concat(chunks).toString();
      const split = text.indexOf('\r\n\r\n');
      const length = /content-length:\s*(\d+)/i.exec(text.slice(0, split));
      if (split >= 0 && length && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1])) socket.end();
    });
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString();
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), headers: text.slice(0, split), body: text.slice(split + 4) });
    };
    socket.on('close', done);
    socket.on('error', () => undefined);
  });
}
