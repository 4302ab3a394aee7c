import WebSocket from 'ws';
import { PairedTokenService } from '@nestclaw/security';
import { eventually } from '../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';

type Frame = { type: string; id?: string; [k: string]: unknown };

function connect(h: Harness, opts: { token?: string; query?: boolean } = {}): Promise<WebSocket> {
  const token = opts.token ?? TEST_TOKEN;
  const url = `${h.gateway.url.replace('http', 'ws')}/ws${opts.query ? `?token=${token}` : ''}`;
  const ws = new WebSocket(url, opts.query ? {} : { headers: { authorization: `Bearer ${token}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** Collects frames for one chat id until done/error. */
function collect(ws: WebSocket, id: string): Promise<Frame[]> {
  return new Promise((resolve) => {
    const frames: Frame[] = [];
    const onMessage = (data: WebSocket.RawData) => {
      const f = JSON.parse(data.toString()) as Frame;
      if (f.id !== id) return;
      frames.push(f);
      if (f.type === 'done' || f.type === 'error') {
        ws.off('message', onMessage);
        resolve(frames);
      }
    };
    ws.on('message', onMessage);
  });
}

describe('WebSocket /ws', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('streams tokens and a final done frame', async () => {
    const ws = await connect(h);
    const frames = collect(ws, 'c1');
    ws.send(JSON.stringify({ type: 'chat', id: 'c1', message: '你好，世界！这是一条中文消息。' }));
    const got = await frames;
    const tokens = got.filter((f) => f.type === 'token').map((f) => f.text as string);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join('')).toBe('echo: 你好，世界！这是一条中文消息。');
    const done = got[got.length - 1];
    expect(done).toMatchObject({ type: 'done', id: 'c1', reply: 'echo: 你好，世界！这是一条中文消息。', sessionId: expect.any(String) });
    ws.close();
  });

  it('refuses a token in the URL (it would end up in logs and history), saying what to send instead', async () => {
    await expect(connect(h, { query: true })).rejects.toThrow('HTTP 401');
  });

  it('refuses the upgrade without a valid token', async () => {
    await expect(connect(h, { token: 'wrong' })).rejects.toThrow('HTTP 401');
  });

  it('cancels a running reply, keeps the partial text marked interrupted, and the next turn works', async () => {
    h.llm.enqueue({ kind: 'text', text: 'a'.repeat(400), tokenDelayMs: 20 });
    const ws = await connect(h);
    const frames = collect(ws, 'c2');
    let cancelled = false;
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString()) as Frame;
      if (f.type === 'token' && !cancelled) {
        cancelled = true;
        setTimeout(() => ws.send(JSON.stringify({ type: 'cancel', id: 'c2' })), 60);
      }
    });
    ws.send(JSON.stringify({ type: 'chat', id: 'c2', message: 'long please' }));
    const got = await frames;
    const last = got[got.length - 1];
    expect(last).toMatchObject({ type: 'error', code: 'cancelled' });
    const sessionId = got.find((f) => f.type === 'started')?.sessionId as string;
    const { messages } = (await (await h.api(`/v1/sessions/${sessionId}/messages`)).json()) as {
      messages: { role: string; content: string; status: string }[];
    };
    expect(messages[0]).toMatchObject({ role: 'user', status: 'interrupted' });
    expect(messages[1]).toMatchObject({ role: 'assistant', status: 'interrupted' });
    expect(messages[1].content.length).toBeGreaterThan(0);
    expect(messages[1].content.length).toBeLessThan(400);

    const next = collect(ws, 'c3');
    ws.send(JSON.stringify({ type: 'chat', id: 'c3', message: 'again', sessionId }));
    expect((await next).pop()).toMatchObject({ type: 'done', reply: 'echo: again' });
    ws.close();
  });

  it('ends a chat when its socket closes, but lets one sent with keepRunning finish and be stored', async () => {
    const firstToken = (ws: WebSocket, id: string) =>
      new Promise<void>((resolve) =>
        ws.on('message', (d) => {
          const f = JSON.parse(d.toString()) as Frame;
          if (f.id === id && f.type === 'token') resolve();
        }),
      );
    const answerOf = async (sessionId: string) =>
      eventually('the turn to settle', async () => {
        const { messages } = (await (await h.api(`/v1/sessions/${sessionId}/messages`)).json()) as {
          messages: { role: string; content: string; status: string }[];
        };
        return messages[0].status === 'pending' ? undefined : messages;
      });
    const run = async (id: string, keepRunning: boolean) => {
      h.llm.enqueue({ kind: 'text', text: 'b'.repeat(200), tokenDelayMs: 20 });
      const ws = await connect(h);
      const session = new Promise<string>((resolve) =>
        ws.on('message', (d) => {
          const f = JSON.parse(d.toString()) as Frame;
          if (f.id === id && f.type === 'started') resolve(f.sessionId as string);
        }),
      );
      const tokenSeen = firstToken(ws, id);
      ws.send(JSON.stringify({ type: 'chat', id, message: 'long please', keepRunning }));
      const sessionId = await session;
      await tokenSeen;
      ws.close();
      return answerOf(sessionId);
    };
    const ended = await run('k1', false);
    expect(ended[0]).toMatchObject({ role: 'user', status: 'interrupted' });
    const kept = await run('k2', true);
    expect(kept[0].status).not.toBe('interrupted');
    expect(kept[1]).toMatchObject({ role: 'assistant', content: 'b'.repeat(200) });
  });

  it('answers a malformed frame with an error frame and keeps the socket open', async () => {
    const ws = await connect(h);
    const error = new Promise<Frame>((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()) as Frame)));
    ws.send('not json');
    expect(await error).toMatchObject({ type: 'error', code: 'invalid_request' });
    const frames = collect(ws, 'ok');
    ws.send(JSON.stringify({ type: 'chat', id: 'ok', message: 'still there?' }));
    expect((await frames).pop()).toMatchObject({ type: 'done' });
    ws.close();
  });

  it('runs at most four chats at once on one socket', async () => {
    for (let i = 0; i < 4; i++) h.llm.enqueue({ kind: 'text', text: 'slow', delayMs: 400 });
    const ws = await connect(h);
    const frames = ['a', 'b', 'c', 'd', 'e'].map((id) => collect(ws, id));
    for (const id of ['a', 'b', 'c', 'd', 'e']) ws.send(JSON.stringify({ type: 'chat', id, message: `msg ${id}` }));
    const last = await Promise.all(frames.map(async (f) => (await f).pop()));
    expect(last.slice(0, 4).map((f) => f?.type)).toEqual(['done', 'done', 'done', 'done']);
    expect(last[4]).toMatchObject({ type: 'error', code: 'rate_limited' });
    ws.close();
  });

  it('reports an unknown session as an error frame', async () => {
    const ws = await connect(h);
    const frames = collect(ws, 'x');
    ws.send(JSON.stringify({ type: 'chat', id: 'x', message: 'hi', sessionId: 'does-not-exist' }));
    expect((await frames).pop()).toMatchObject({ type: 'error', code: 'session_not_found' });
    ws.close();
  });

  it("sends every session's turn started and finished events to a subscribe_sessions subscriber", async () => {
    const ws = await connect(h);
    const frames: Frame[] = [];
    ws.on('message', (d: WebSocket.RawData) => frames.push(JSON.parse(d.toString()) as Frame));
    ws.send(JSON.stringify({ type: 'subscribe_sessions', id: 'all' }));
    await eventually('the subscription', () => frames.some((f) => f.type === 'subscribed' && f.id === 'all'));
    const res = await h.api('/v1/chat', { json: { message: 'seen by the sessions list' } });
    const { sessionId } = (await res.json()) as { sessionId: string };
    const kinds = () => frames.filter((f) => f.type === 'session_event' && f.id === 'all' && f.sessionId === sessionId).map((f) => f.kind);
    await eventually('both events of the turn', () => kinds().includes('turn_finished'));
    expect(kinds()).toEqual(['turn_started', 'turn_finished']);
    ws.close();
  });

  it('refuses subscribe_sessions to a token without the admin scope', async () => {
    const { token } = await h.gateway.app.get(PairedTokenService).issue('ws chat only', ['chat']);
    const ws = await connect(h, { token });
    const answer = new Promise<Frame>((resolve) =>
      ws.once('message', (d: WebSocket.RawData) => resolve(JSON.parse(d.toString()) as Frame)),
    );
    ws.send(JSON.stringify({ type: 'subscribe_sessions', id: 'all' }));
    expect(await answer).toMatchObject({ type: 'error', id: 'all', code: 'forbidden' });
    ws.close();
  });
});
