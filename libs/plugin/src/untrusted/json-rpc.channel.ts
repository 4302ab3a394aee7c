import type { Readable, Writable } from 'node:stream';

/** A line longer than this is not a message: it is dropped (and counted as garbage). */
const MAX_LINE_BYTES = 1024 * 1024;

export class RpcTimeoutError extends Error {}
export class RpcClosedError extends Error {}
export class RpcRemoteError extends Error {}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * JSON-RPC 2.0 requests over newline-delimited JSON on a child's stdin/stdout. What the child prints
 * that is not a JSON-RPC answer (logs, garbage, a line too long) is counted and handed to `onNoise`,
 * never thrown: a plugin's output cannot break the gateway.
 */
export class JsonRpcChannel {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = '';
  private skipping = false;
  private closed = false;
  /** Lines that were not an answer to a request. */
  noise = 0;

  constructor(
    private readonly input: Writable,
    output: Readable,
    private readonly onNoise: (line: string) => void,
  ) {
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => this.receive(chunk));
    output.on('error', () => undefined);
  }

  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new RpcClosedError('the plugin process is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcTimeoutError(`no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`, (e) => {
        if (e) this.settle(id, undefined, new RpcClosedError(`could not write to the plugin: ${e.message}`));
      });
    });
  }

  /** Fails every request still waiting (the process is gone). */
  close(why: string): void {
    this.closed = true;
    for (const id of [...this.pending.keys()]) this.settle(id, undefined, new RpcClosedError(why));
  }

  private settle(id: number, value: unknown, error?: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (error) p.reject(error);
    else p.resolve(value);
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl < 0) break;
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      this.line(line);
    }
    if (Buffer.byteLength(this.buffer) > MAX_LINE_BYTES) {
      this.noise++;
      this.onNoise(`${this.buffer.slice(0, 80)}… (a line over ${MAX_LINE_BYTES} bytes, dropped)`);
      this.buffer = '';
      this.skipping = true;
    }
  }

  private line(line: string): void {
    const text = line.trim();
    if (!text) return;
    let msg: { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: { message?: unknown } };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      this.noise++;
      this.onNoise(text);
      return;
    }
    if (!msg || typeof msg !== 'object' || msg.jsonrpc !== '2.0' || typeof msg.id !== 'number' || !this.pending.has(msg.id)) {
      this.noise++;
      this.onNoise(text);
      return;
    }
    if (msg.error) {
      const m = typeof msg.error.message === 'string' ? msg.error.message : 'error';
      this.settle(msg.id, undefined, new RpcRemoteError(m.slice(0, 2000)));
    } else this.settle(msg.id, msg.result);
  }
}
