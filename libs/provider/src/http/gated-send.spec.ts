import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpenCall } from '../llm-call.record';
import { nodeFetch } from './node-fetch.transport';

/** A loopback endpoint that notes each complete request, and the order of events around it. */
let server: Server;
let url: string;
const events: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      events.push(`request ${String(req.headers['x-client-request-id'])}`);
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => (events.length = 0));

/** An in-memory row: notes open, commit and discard; `commitError` makes COMMIT fail. */
function row(id: string, options: { commitError?: Error; onOpen?: () => void } = {}) {
  return async (): Promise<OpenCall> => {
    events.push('open');
    options.onOpen?.();
    return {
      id,
      commit: () => {
        events.push('commit');
        return options.commitError ? Promise.reject(options.commitError) : Promise.resolve();
      },
      discard: async () => void events.push('discard'),
    };
  };
}

const post = (init: Record<string, unknown>) =>
  nodeFetch(url, { method: 'POST', body: '{"messages":[]}', idHeader: 'X-Client-Request-Id', ...init } as RequestInit);

describe('nodeFetch with a ledger gate', () => {
  it('opens the row, then commits it and writes the request carrying its id', async () => {
    const res = await post({ gate: row('7') });
    expect(await res.json()).toEqual({ ok: true });
    expect(events).toEqual(['open', 'commit', 'request nestclaw-call-7']);
  });

  it('sends nothing and discards the row when aborted while the row was written', async () => {
    const abort = new AbortController();
    const e = await post({ gate: row('8', { onOpen: () => abort.abort() }), signal: abort.signal }).catch((err: unknown) => err);
    expect((e as Error).name).toBe('AbortError');
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual(['open', 'discard']);
  });

  it('sends nothing when the row cannot be written', async () => {
    const e = await post({ gate: () => Promise.reject(new Error('database down')) }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TypeError);
    expect(((e as TypeError).cause as Error).message).toBe('database down');
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([]);
  });

  it('fails the request when its COMMIT fails', async () => {
    const e = await post({ gate: row('9', { commitError: new Error('connection lost') }) }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TypeError);
    expect(((e as TypeError).cause as Error).message).toBe('connection lost');
    // The request was written with the COMMIT (it may have reached the server): let it land here.
    await new Promise((r) => setTimeout(r, 100));
    expect(events.slice(0, 2)).toEqual(['open', 'commit']);
  });

  it('sends a request without a gate as before', async () => {
    const res = await nodeFetch(url, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(events).toEqual(['request undefined']);
  });
});
