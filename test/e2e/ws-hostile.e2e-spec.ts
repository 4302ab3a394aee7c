import { request } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import WebSocket from 'ws';
import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';

type Frame = { type: string; id?: string | null; code?: string; message?: string; [k: string]: unknown };
type ErrorBody = { error: { code: string; message: string } };

const BODY_LIMIT = 64 * 1024;
const PING_MS = 300;

function wsUrl(h: Harness, path = '/ws'): string {
  return `${h.gateway.url.replace('http', 'ws')}${path}`;
}

function open(h: Harness, options: WebSocket.ClientOptions = {}, token = TEST_TOKEN): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl(h), { headers: { authorization: `Bearer ${token}` }, ...options });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** The HTTP answer to an upgrade the gateway refuses: status, headers and parsed JSON body. */
function refusal(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; body: ErrorBody; retryAfter?: string }> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('upgrade unexpectedly accepted')));
    ws.once('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          body: JSON.parse(text) as ErrorBody,
          retryAfter: res.headers['retry-after'] as string | undefined,
        }),
      );
    });
  });
}

function nextFrame(ws: WebSocket): Promise<Frame> {
  return new Promise((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()) as Frame)));
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

/** A fresh client completes a chat turn: the gateway is alive and serving. */
async function expectServes(h: Harness): Promise<void> {
  const ws = await open(h);
  const id = `alive-${Math.random().toString(36).slice(2)}`;
  const done = new Promise<Frame>((resolve) =>
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString()) as Frame;
      if (f.id === id && (f.type === 'done' || f.type === 'error')) resolve(f);
    }),
  );
  ws.send(JSON.stringify({ type: 'chat', id, message: 'still alive?' }));
  expect(await done).toMatchObject({ type: 'done', reply: 'echo: still alive?' });
  ws.close();
}

describe('WebSocket /ws against hostile clients', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        server: { body_limit: BODY_LIMIT, ws_ping_interval: `${PING_MS}ms` },
        security: { rate_limit: { per_token: { limit: 3, window: '1m' } } },
      },
    });
  });
  afterAll(() => h.stop());

  it('closes an oversize frame with 1009 after a JSON error frame, and serves the next client', async () => {
    const ws = await open(h);
    const error = nextFrame(ws);
    const close = closed(ws);
    ws.send(JSON.stringify({ type: 'chat', id: 'big', message: 'x'.repeat(BODY_LIMIT + 10) }));
    expect(await error).toMatchObject({ type: 'error', id: null, code: 'payload_too_large' });
    expect(await close).toEqual({ code: 1009, reason: 'payload_too_large' });
    await expectServes(h);
  });

  it('closes a text frame with invalid UTF-8 with 1007 after a JSON error frame, and serves the next client', async () => {
    const ws = await open(h);
    const error = nextFrame(ws);
    const close = closed(ws);
    ws.send(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), { binary: false });
    expect(await error).toMatchObject({ type: 'error', id: null, code: 'invalid_request' });
    expect(await close).toEqual({ code: 1007, reason: 'invalid_request' });
    await expectServes(h);
  });

  it.each([
    [
      'a binary frame',
      (ws: WebSocket) => ws.send(Buffer.from('{"type":"chat","id":"b","message":"hi"}'), { binary: true }),
      null,
      /binary/,
    ],
    ['a frame that is not JSON', (ws: WebSocket) => ws.send('{"type":"chat",'), null, /not valid JSON/],
    ['a JSON array', (ws: WebSocket) => ws.send('[1,2,3]'), null, /expected object/],
    ['a huge id', (ws: WebSocket) => ws.send(JSON.stringify({ type: 'chat', id: 'i'.repeat(10_000), message: 'hi' })), null, /id:/],
    [
      'a NUL in the message',
      (ws: WebSocket) => ws.send(JSON.stringify({ type: 'chat', id: 'nul', message: 'a\u0000b' })),
      'nul',
      /message: contains a NUL/,
    ],
    [
      'an unpaired surrogate',
      (ws: WebSocket) => ws.send('{"type":"chat","id":"sur","message":"a\\ud800b"}'),
      'sur',
      /message: contains an unpaired/,
    ],
    ['an unknown type', (ws: WebSocket) => ws.send(JSON.stringify({ type: '__proto__', id: 't' })), 't', /type/],
    ['a number for the message', (ws: WebSocket) => ws.send(JSON.stringify({ type: 'chat', id: 'n', message: 1e308 })), 'n', /message/],
    ['deeply nested JSON', (ws: WebSocket) => ws.send(`${'['.repeat(20_000)}${']'.repeat(20_000)}`), null, /Bad frame/],
  ])('answers %s with an error frame, keeps the socket open, and serves the next client', async (_name, send, id, why) => {
    const ws = await open(h);
    const error = nextFrame(ws);
    send(ws);
    const frame = await error;
    expect(frame).toMatchObject({ type: 'error', id, code: 'invalid_request' });
    expect(frame.message).toMatch(why);
    // Same socket still works.
    const done = new Promise<Frame>((resolve) =>
      ws.on('message', (d) => {
        const f = JSON.parse(d.toString()) as Frame;
        if (f.id === 'after' && (f.type === 'done' || f.type === 'error')) resolve(f);
      }),
    );
    ws.send(JSON.stringify({ type: 'chat', id: 'after', message: 'and now?' }));
    expect(await done).toMatchObject({ type: 'done' });
    ws.close();
    await expectServes(h);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'answers agentId "%s" as an unknown agent, not a crash',
    async (agentId) => {
      const ws = await open(h);
      const error = nextFrame(ws);
      ws.send(JSON.stringify({ type: 'chat', id: 'proto', message: 'hi', agentId }));
      expect(await error).toMatchObject({
        type: 'error',
        id: 'proto',
        code: 'invalid_request',
        message: expect.stringContaining('Unknown agentId'),
      });
      ws.close();
    },
  );

  it('ignores prototype keys in a frame instead of merging them', async () => {
    const ws = await open(h);
    const frames: Frame[] = [];
    const done = new Promise<void>((resolve) =>
      ws.on('message', (d) => {
        const f = JSON.parse(d.toString()) as Frame;
        frames.push(f);
        if (f.type === 'done' || f.type === 'error') resolve();
      }),
    );
    ws.send(
      '{"type":"chat","id":"pk","message":"proto keys","__proto__":{"agentId":"nope","polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    );
    await done;
    expect(frames.pop()).toMatchObject({ type: 'done', reply: 'echo: proto keys' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    ws.close();
  });

  it('survives a client that resets its TCP connection mid-frame', async () => {
    const ws = await open(h);
    // Half a frame header announcing 1000 bytes, then an abrupt reset.
    (ws as unknown as { _socket: import('node:net').Socket })._socket.write(Buffer.from([0x81, 0xfe, 0x03, 0xe8, 1, 2]));
    (ws as unknown as { _socket: import('node:net').Socket })._socket.resetAndDestroy();
    await new Promise((r) => setTimeout(r, 100));
    await expectServes(h);
  });

  it('refuses upgrades in the JSON error shape: 401 no or wrong token, 403 without the chat scope, 404 other paths, 400 bad handshake', async () => {
    const none = await refusal(wsUrl(h));
    expect(none).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect(none.type).toContain('application/json');
    expect(await refusal(`${wsUrl(h)}?token=wrong`)).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    // The right token in the URL is refused too, and the answer says what to send instead.
    const inUrl = await refusal(`${wsUrl(h)}?token=${TEST_TOKEN}`);
    expect(inUrl).toMatchObject({ status: 401, body: { error: { message: expect.stringContaining('a token in the URL is refused') } } });
    expect(JSON.stringify(inUrl.body)).not.toContain(TEST_TOKEN);

    const code = (await (await h.api('/v1/pair/codes', { json: { scopes: ['approve'] } })).json()) as { code: string };
    const paired = (await (
      await fetch(`${h.gateway.url}/v1/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: code.code, name: 'approver-only' }),
      })
    ).json()) as { token: string };
    expect(await refusal(wsUrl(h), { authorization: `Bearer ${paired.token}` })).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden' } },
    });

    expect(await refusal(wsUrl(h, '/elsewhere'), { authorization: `Bearer ${TEST_TOKEN}` })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });

    const raw = await new Promise<string>((resolve) => {
      const s = tcpConnect(h.gateway.port, '127.0.0.1', () =>
        s.write(`GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`),
      );
      let text = '';
      s.on('data', (c) => (text += c.toString()));
      s.on('close', () => resolve(text));
      s.on('error', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'invalid_request' } });
    await expectServes(h);
  });

  it('refuses upgrades over the token rate limit with 429 and Retry-After', async () => {
    const code = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const { token } = (await (
      await fetch(`${h.gateway.url}/v1/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: code.code, name: 'limited' }),
      })
    ).json()) as { token: string };
    for (let i = 0; i < 3; i++) (await open(h, {}, token)).close();
    const limited = await refusal(wsUrl(h), { authorization: `Bearer ${token}` });
    expect(limited).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
  });

  it('drops a client that stops answering pings and keeps one that answers', async () => {
    const silent = await open(h, { autoPong: false });
    const healthy = await open(h);
    const silentClosed = closed(silent);
    let healthyClosed = false;
    healthy.on('close', () => (healthyClosed = true));
    let pings = 0;
    healthy.on('ping', () => pings++);
    const started = Date.now();
    await silentClosed;
    expect(Date.now() - started).toBeLessThan(PING_MS * 4);
    await new Promise((r) => setTimeout(r, PING_MS * 2));
    expect(pings).toBeGreaterThanOrEqual(2);
    expect(healthyClosed).toBe(false);
    healthy.close();
  });

  it('answers plain HTTP GET /ws (no upgrade) in the JSON error shape', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${h.gateway.url}/ws`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'not_found' } });
  });
});
