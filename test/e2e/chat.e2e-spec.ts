import { Harness, startHarness } from '../support/gateway-harness';
import { eventually } from '../support/eventually';
import { readSse } from '../support/sse';

describe('POST /v1/chat', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('answers a JSON chat turn and reports usage and cost', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'hello there' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      sessionId: string;
      reply: string;
      usage: { inputTokens: number; outputTokens: number; costUsd: number };
    };
    expect(body.reply).toBe('echo: hello there');
    expect(body.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.usage.inputTokens).toBeGreaterThan(0);
    expect(body.usage.outputTokens).toBeGreaterThan(0);
    // price: input 1 USD / 1M, output 2 USD / 1M
    expect(body.usage.costUsd).toBeCloseTo((body.usage.inputTokens * 1 + body.usage.outputTokens * 2) / 1e6, 8);
  });

  it('keeps history within a session and stores the transcript in order', async () => {
    const first = (await (await h.api('/v1/chat', { json: { message: 'first' } })).json()) as { sessionId: string };
    await h.api('/v1/chat', { json: { message: 'second', sessionId: first.sessionId } });
    const sent = h.llm.requests[h.llm.requests.length - 1].body.messages.map((m) => `${m.role}:${m.content}`);
    expect(sent).toEqual([expect.stringMatching(/^system:/), 'user:first', 'assistant:echo: first', 'user:second']);
    const res = await h.api(`/v1/sessions/${first.sessionId}/messages`);
    const { messages } = (await res.json()) as { messages: { seq: number; role: string; content: string; status: string }[] };
    expect(messages.map((m) => [m.seq, m.role, m.content, m.status])).toEqual([
      [1, 'user', 'first', 'ok'],
      [2, 'assistant', 'echo: first', 'ok'],
      [3, 'user', 'second', 'ok'],
      [4, 'assistant', 'echo: second', 'ok'],
    ]);
    const list = (await (await h.api('/v1/sessions')).json()) as { sessions: { id: string; messageCount: number }[] };
    expect(list.sessions.find((s) => s.id === first.sessionId)?.messageCount).toBe(4);
  });

  it('streams tokens then done over SSE', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'stream me please', stream: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(res);
    const tokens = events.filter((e) => e.event === 'token').map((e) => (JSON.parse(e.data) as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(2);
    expect(tokens.join('')).toBe('echo: stream me please');
    const done = events[events.length - 1];
    expect(done.event).toBe('done');
    expect(JSON.parse(done.data)).toMatchObject({ reply: 'echo: stream me please', usage: { inputTokens: expect.any(Number) } });
  });

  it('streams when the client asks for text/event-stream', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'hi' }, headers: { accept: 'text/event-stream' } });
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toContain('done');
  });

  it('runs a tool call round trip through the agent loop', async () => {
    const res = await h.api('/v1/chat', {
      json: { message: 'what time is it? [tool:current_time {"timezone":"Asia/Shanghai"}]', stream: true },
    });
    const events = await readSse(res);
    const names = events.map((e) => e.event);
    expect(names).toEqual(expect.arrayContaining(['tool_call', 'tool_result', 'done']));
    const call = JSON.parse(events.find((e) => e.event === 'tool_call')!.data) as { name: string; input: unknown };
    expect(call).toMatchObject({ name: 'current_time', input: { timezone: 'Asia/Shanghai' } });
    const result = JSON.parse(events.find((e) => e.event === 'tool_result')!.data) as { output: string; isError: boolean };
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.output)).toMatchObject({ timezone: 'Asia/Shanghai' });
    const done = JSON.parse(events[events.length - 1].data) as { reply: string; sessionId: string };
    expect(done.reply).toContain('tool said:');
    // the model saw the tool result in the second request
    const second = h.llm.requests[h.llm.requests.length - 1].body.messages;
    expect(second[second.length - 1]).toMatchObject({ role: 'tool' });
    const { messages } = (await (await h.api(`/v1/sessions/${done.sessionId}/messages`)).json()) as { messages: { role: string }[] };
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('answers 20 concurrent messages to one session, all in order', async () => {
    const { sessionId } = (await (await h.api('/v1/chat', { json: { message: 'start' } })).json()) as { sessionId: string };
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.api('/v1/chat', { json: { message: `m${i}`, sessionId } }).then((r) => r.json() as Promise<{ reply: string }>),
      ),
    );
    expect(replies.map((r) => r.reply)).toEqual(Array.from({ length: 20 }, (_, i) => `echo: m${i}`));
    const { messages } = (await (await h.api(`/v1/sessions/${sessionId}/messages?limit=1000`)).json()) as {
      messages: { role: string; content: string }[];
    };
    const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual(['start', ...Array.from({ length: 20 }, (_, i) => `m${i}`)]);
    // each user message is directly followed by its own answer
    for (let i = 0; i < messages.length; i += 2) expect(messages[i + 1].content).toBe(`echo: ${messages[i].content}`);
  });
});

describe('turn scheduling and cancellation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  type Message = { role: string; content: string; status: string };
  const newSession = async () =>
    ((await (await h.api('/v1/chat', { json: { message: 'hello' } })).json()) as { sessionId: string }).sessionId;
  const messagesOf = async (sessionId: string) =>
    ((await (await h.api(`/v1/sessions/${sessionId}/messages`)).json()) as { messages: Message[] }).messages;
  const reachedModel = (text: string) => h.llm.requests.some((r) => r.body.messages.some((m) => m.content === text));

  it('runs different sessions concurrently while one session waits its turn', async () => {
    const [a, b] = [await newSession(), await newSession()];
    h.llm.enqueue({ kind: 'hang' });
    const client = new AbortController();
    const held = h.api('/v1/chat', { json: { message: 'held', sessionId: a }, signal: client.signal }).catch(() => undefined);
    await eventually('the held turn to reach the model', () => reachedModel('held'));
    const queued = h.api('/v1/chat', { json: { message: 'queued behind held', sessionId: a } });
    // Another session is answered while session a's model call is still open.
    const other = await h.api('/v1/chat', { json: { message: 'other session', sessionId: b } });
    expect(((await other.json()) as { reply: string }).reply).toBe('echo: other session');
    // Session a's second message has not reached the model: it waits for the open turn.
    expect(reachedModel('queued behind held')).toBe(false);
    client.abort();
    await held;
    expect(((await (await queued).json()) as { reply: string }).reply).toBe('echo: queued behind held');
    expect((await messagesOf(a)).map((m) => [m.content, m.status])).toEqual([
      ['hello', 'ok'],
      ['echo: hello', 'ok'],
      ['held', 'interrupted'],
      ['queued behind held', 'ok'],
      ['echo: queued behind held', 'ok'],
    ]);
  });

  it('aborts the model call when an HTTP client disconnects and keeps the partial reply marked interrupted', async () => {
    const sessionId = await newSession();
    h.llm.enqueue({ kind: 'text', text: 'y'.repeat(800), tokenDelayMs: 15 });
    const controller = new AbortController();
    const res = await h.api('/v1/chat', { json: { message: 'disconnect me', sessionId, stream: true }, signal: controller.signal });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('event: token')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const llmRequest = h.llm.requests[h.llm.requests.length - 1];
    expect(llmRequest.body.stream).toBe(true);
    const turn = await eventually('the turn to close as interrupted', async () => {
      const rows = (await messagesOf(sessionId)).slice(2);
      return rows[0]?.status === 'interrupted' ? rows : undefined;
    });
    expect(turn[0]).toMatchObject({ role: 'user', content: 'disconnect me', status: 'interrupted' });
    expect(turn[1]).toMatchObject({ role: 'assistant', status: 'interrupted' });
    expect(turn[1].content.length).toBeGreaterThan(0);
    expect(turn[1].content.length).toBeLessThan(800);
  });
});
