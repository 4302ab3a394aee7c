import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { launchServerProcess, ServerProcess, ServerProcessSpec } from '@nestclaw/tool';

/** Most stderr kept for the status line when a server fails (servers print their errors there). */
const STDERR_TAIL = 400;

/**
 * The MCP stdio transport (newline-delimited JSON-RPC on the child's stdin/stdout) over a process the
 * tool lib's executor layer starts, instead of the SDK's StdioClientTransport, which spawns by itself
 * and hands the child part of the parent's environment.
 */
export class ServerProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private process?: ServerProcess;
  private readonly buffer = new ReadBuffer();
  private stderr = '';

  constructor(private readonly spec: ServerProcessSpec) {}

  /** The end of what the server printed on stderr (for a failure's status line). */
  stderrTail(): string {
    return this.stderr.trim();
  }

  async start(): Promise<void> {
    const proc = launchServerProcess(this.spec);
    this.process = proc;
    proc.stdout.on('data', (chunk: Buffer) => {
      try {
        this.buffer.append(chunk);
      } catch (e) {
        // A line over 10 MB: the server is broken; the connection restarts it.
        this.onerror?.(e as Error);
        proc.stop();
        return;
      }
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (e) {
          // A line that is not JSON-RPC: reported, and the stream goes on with the next line.
          this.onerror?.(e as Error);
          continue;
        }
        if (!message) break;
        this.onmessage?.(message);
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    proc.onExit(() => {
      this.process = undefined;
      this.buffer.clear();
      this.onclose?.();
    });
    await proc.started;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const proc = this.process;
    if (!proc || proc.stdin.destroyed) return Promise.reject(new Error('the server process is not running'));
    return new Promise((resolve, reject) => {
      // The callback reports a failed write (the process died meanwhile); 'drain' waits out a full pipe.
      const flushed = proc.stdin.write(serializeMessage(message), (e) => (e ? reject(e) : undefined));
      if (flushed) resolve();
      else proc.stdin.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.process?.stop();
    return Promise.resolve();
  }
}
