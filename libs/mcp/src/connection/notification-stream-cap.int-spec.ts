import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { configSchema } from '@nestclaw/config';
import { MAX_RESPONSE_BYTES } from '../transport/capped-fetch';
import { McpConnection } from './mcp-connection';

const STREAM_BYTES = 64 * 1024 * 1024;

async function until<T>(what: string, f: () => T | undefined | false, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Stream {
  written: number;
  closed: boolean;
}

/**
 * A Streamable HTTP MCP server that answers initialize, tools/list and ping, and whose GET
 * notification stream is one endless event: `data: xxxx…` with no line end for 64 MB, then held open.
 */
async function startHostileServer(): Promise<{ url: string; streams: Stream[]; stop(): Promise<void> }> {
  const streams: Stream[] = [];
  const answer = (res: ServerResponse, id: unknown, result: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'hostile' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  };
  const post = async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    const m = JSON.parse(body) as { id?: unknown; method: string; params?: { protocolVersion?: string } };
    if (m.id === undefined) return void res.writeHead(202).end();
    if (m.method === 'initialize')
      return answer(res, m.id, {
        protocolVersion: m.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile', version: '1' },
      });
    if (m.method === 'tools/list') return answer(res, m.id, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
    return answer(res, m.id, {});
  };
  const get = async (res: ServerResponse) => {
    const s: Stream = { written: 0, closed: false };
    streams.push(s);
    let wake = () => undefined as void;
    res.on('drain', () => wake());
    res.on('close', () => {
      s.closed = true;
      wake();
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'hostile' });
    res.write('data: ');
    const chunk = Buffer.alloc(64 * 1024, 'x');
    while (!s.closed && s.written < STREAM_BYTES) {
      s.written += chunk.length;
      // Backpressure: the server holds no more than the socket does, so `written` is what the client let in.
      if (!res.write(chunk)) await new Promise<void>((r) => (wake = r));
    }
  };
  const server: Server = createServer((req, res) => void (req.method === 'GET' ? get(res) : post(req, res)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    streams,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** One connection against a real HTTP server whose notification stream sends an endless event. */
describe('McpConnection (Streamable HTTP, over-size notification event)', () => {
  let hostile: Awaited<ReturnType<typeof startHostileServer>>;
  let c: McpConnection;
  beforeAll(async () => {
    hostile = await startHostileServer();
  });
  afterAll(async () => {
    await c?.stop();
    await hostile?.stop();
  });

  it('drops the connection after the cap instead of reading the whole event, says why, and connects again', async () => {
    const config = configSchema.parse({ mcp: { servers: { s: { transport: 'http', url: hostile.url, timeout: '3s' } } } }).mcp.servers.s;
    c = new McpConnection('s', config, () => undefined);
    c.start();
    await until('the connection to be dropped for the over-size event', () => c.status().lastError?.includes('larger than'));
    expect(c.status().lastError).toContain(`larger than ${MAX_RESPONSE_BYTES} bytes`);
    expect(c.status().lastError).toContain('remove it from mcp.servers');
    const first = await until('the first stream to be closed by the client', () => hostile.streams[0]?.closed && hostile.streams[0]);
    // The client stopped reading at the cap: what the server got out is the cap plus socket buffers, far from 64 MB.
    expect(first.written).toBeGreaterThan(MAX_RESPONSE_BYTES);
    expect(first.written).toBeLessThan(STREAM_BYTES / 2);
    // The connection's own backoff takes over: connected again (and cut again), counted as a reconnect.
    await until('a reconnect', () => c.status().reconnects >= 1);
    expect(c.listed().map((t) => t.name)).toEqual(['echo']);
  });
});
