import WebSocket from 'ws';
import { PairedTokenService } from '@nestclaw/security';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { describeWithHostTools } from '../../support/host-tools';
import { parseSse } from '../../support/sse';

interface Approval {
  id: string;
  sessionId: string;
  turnId: string;
  tool: string;
  input: { command?: string; path?: string; approval_note?: string };
  status: string;
  decidedBy: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, f: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const shellCall = (command: string) => `please run it [tool:shell ${JSON.stringify({ command })}]`;
/** file_write needs approval by default and no sandbox (the gateway's checked file access), so these run on any machine. */
const writeCall = (path: string, content = path) => `save it [tool:file_write ${JSON.stringify({ path, content })}]`;
const wrote = (path: string, content = path) => `tool said: wrote ${Buffer.byteLength(content)} bytes to ${path}`;

describe('tool approvals (real gateway, fake LLM)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  const pendingFor = (path: string) =>
    waitFor(`a pending approval for ${path}`, async () => {
      const res = await h.api('/v1/approvals?status=pending');
      const { approvals } = (await res.json()) as { approvals: Approval[] };
      return approvals.find((a) => a.input.path === path);
    });

  const decide = (id: string, decision: 'approve' | 'deny', remember?: boolean) =>
    h.api(`/v1/approvals/${id}`, { json: { decision, ...(remember !== undefined ? { remember } : {}) } });

  it('pauses a file_write call for approval, then runs it and answers', async () => {
    const path = 'approved-run.txt';
    const chat = h.api('/v1/chat', { json: { message: writeCall(path) } });
    const approval = await pendingFor(path);
    expect(approval).toMatchObject({ tool: 'file_write', status: 'pending' });
    const before = h.llm.chatRequests;
    const res = await decide(approval.id, 'approve');
    expect(res.status).toBe(201);
    expect(((await res.json()) as { approval: Approval }).approval).toMatchObject({ status: 'approved', decidedBy: 'owner' });
    const body = (await (await chat).json()) as { reply: string; sessionId: string };
    expect(body.reply).toBe(wrote(path));
    expect(h.llm.chatRequests).toBe(before + 1);
  });

  it('refuses tool input with a NUL character as a tool error before anything is stored', async () => {
    const message = `write it [tool:file_write ${JSON.stringify({ path: 'a\u0000b.txt', content: 'x' })}]`;
    const res = await h.api('/v1/chat', { json: { message } });
    expect(res.status).toBe(200);
    const { reply } = (await res.json()) as { reply: string };
    expect(reply).toContain('invalid input: input.path contains a NUL character');
    const { approvals } = (await (await h.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
    expect(approvals.filter((a) => a.tool === 'file_write')).toHaveLength(0);
  });

  it('streams approval_required over SSE and the result reaches the model', async () => {
    const path = 'over-sse.txt';
    const res = await h.api('/v1/chat', { json: { message: writeCall(path), stream: true } });
    const reader = res.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (!text.includes('event: approval_required')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before approval_required: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    const event = parseSse(text).find((e) => e.event === 'approval_required')!;
    const payload = JSON.parse(event.data) as { approvalId: string; tool: string; input: { path: string } };
    expect(payload).toMatchObject({ tool: 'file_write', input: { path } });
    await decide(payload.approvalId, 'approve');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const events = parseSse(text);
    const result = JSON.parse(events.find((e) => e.event === 'tool_result')!.data) as { output: string; isError: boolean };
    expect(result).toMatchObject({ isError: false, output: `wrote ${path.length} bytes to ${path}` });
    const done = JSON.parse(events[events.length - 1].data) as { reply: string };
    expect(done.reply).toBe(wrote(path));
    const last = h.llm.requests[h.llm.requests.length - 1].body.messages;
    expect(last[last.length - 1]).toMatchObject({ role: 'tool', content: expect.stringContaining(`to ${path}`) });
  });

  it('sends an approval_required frame over WebSocket and finishes after approval', async () => {
    const ws = new WebSocket(`${h.gateway.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const frames: { type: string; approvalId?: string; tool?: string; reply?: string }[] = [];
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data: WebSocket.RawData) => {
        const f = JSON.parse(data.toString()) as (typeof frames)[number];
        frames.push(f);
        if (f.type === 'approval_required') void decide(f.approvalId!, 'approve');
        if (f.type === 'done' || f.type === 'error') resolve();
      }),
    );
    ws.send(JSON.stringify({ type: 'chat', id: 'w1', message: writeCall('over-ws.txt') }));
    await done;
    ws.close();
    expect(frames.map((f) => f.type).filter((t) => t !== 'token')).toEqual([
      'started',
      'tool_call',
      'approval_required',
      'tool_result',
      'done',
    ]);
    expect(frames.find((f) => f.type === 'approval_required')).toMatchObject({ tool: 'file_write' });
    expect(frames[frames.length - 1].reply).toBe(wrote('over-ws.txt'));
  });

  it('tells the model when the call is denied, and the file is not written', async () => {
    const path = 'never-written.txt';
    const chat = h.api('/v1/chat', { json: { message: writeCall(path) } });
    const approval = await pendingFor(path);
    await decide(approval.id, 'deny');
    const body = (await (await chat).json()) as { reply: string };
    expect(body.reply).toBe('tool said: denied: owner refused this file_write call');
    const list = await h.api('/v1/chat', { json: { message: 'ls [tool:file_list {"path":"."}]' } });
    expect(((await list.json()) as { reply: string }).reply).not.toContain(path);
  });

  it('refuses a second decision on the same approval', async () => {
    const path = 'decide-twice.txt';
    const chat = h.api('/v1/chat', { json: { message: writeCall(path) } });
    const approval = await pendingFor(path);
    await decide(approval.id, 'deny');
    await chat;
    const again = await decide(approval.id, 'approve');
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conflict');
  });

  it('lets only a token with the approve scope list or decide, and records who decided', async () => {
    const tokens = h.gateway.app.get(PairedTokenService);
    const chatOnly = (await tokens.issue('chat-only', ['chat'])).token;
    const approver = await tokens.issue('approver', ['approve']);
    const as = (token: string, path: string, json?: unknown) =>
      fetch(`${h.gateway.url}${path}`, {
        method: json ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(json) : undefined,
      });
    const path = 'scoped.txt';
    const chat = h.api('/v1/chat', { json: { message: writeCall(path) } });
    const approval = await pendingFor(path);
    expect((await as(chatOnly, '/v1/approvals?status=pending')).status).toBe(403);
    expect((await as(chatOnly, `/v1/approvals/${approval.id}`, { decision: 'approve' })).status).toBe(403);
    const res = await as(approver.token, `/v1/approvals/${approval.id}`, { decision: 'approve' });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { approval: Approval }).approval.decidedBy).toBe(approver.info.id);
    expect(((await (await chat).json()) as { reply: string }).reply).toBe(wrote(path));
  });

  it('resumes a pending approval after a restart and completes the run', async () => {
    const path = 'survives-restart.txt';
    const chat = h.api('/v1/chat', { json: { message: writeCall(path) } }).catch(() => undefined);
    const approval = await pendingFor(path);
    await h.restart();
    await chat;
    const still = (await (await h.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
    expect(still.approvals.map((a) => a.id)).toContain(approval.id);
    await decide(approval.id, 'approve');
    const messages = await waitFor('the resumed reply', async () => {
      const res = await h.api(`/v1/sessions/${approval.sessionId}/messages`);
      const { messages } = (await res.json()) as { messages: { role: string; content: string; status: string }[] };
      return messages.some((m) => m.role === 'assistant' && m.content.startsWith('tool said:')) ? messages : undefined;
    });
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'ok'],
      ['assistant', 'ok'],
      ['tool', 'ok'],
      ['assistant', 'ok'],
    ]);
    expect(messages[2].content).toContain(`to ${path}`);
    expect(messages[3].content).toBe(wrote(path));
  });

  it('writes a file after approval and reads it back inside the agent workspace', async () => {
    const chat = h.api('/v1/chat', { json: { message: 'save [tool:file_write {"path":"notes/a.txt","content":"hello file"}]' } });
    await decide((await pendingFor('notes/a.txt')).id, 'approve');
    expect(((await (await chat).json()) as { reply: string }).reply).toBe('tool said: wrote 10 bytes to notes/a.txt');
    const read = await h.api('/v1/chat', { json: { message: 'read [tool:file_read {"path":"notes/a.txt"}]' } });
    expect(((await read.json()) as { reply: string }).reply).toBe('tool said: hello file');
    const list = await h.api('/v1/chat', { json: { message: 'ls [tool:file_list {"path":"."}]' } });
    expect(((await list.json()) as { reply: string }).reply).toContain('notes/');
    const escape = await h.api('/v1/chat', { json: { message: 'peek [tool:file_read {"path":"../../../token"}]' } });
    expect(((await escape.json()) as { reply: string }).reply).toContain('is outside the workspace');
  });

  it('refuses http_request to loopback without asking (GET needs no approval)', async () => {
    const res = await h.api('/v1/chat', {
      json: { message: `fetch [tool:http_request {"method":"GET","url":"${h.gateway.url}/health"}]` },
    });
    expect(((await res.json()) as { reply: string }).reply).toContain('refused: 127.0.0.1 is a private, loopback or link-local address');
  });

  it('writes tool executions and approval decisions to the audit log', async () => {
    const res = await h.api('/v1/audit?limit=200');
    expect(res.status).toBe(200);
    const { entries } = (await res.json()) as { entries: { id: number; action: string; outcome: string; actor: string; target: string }[] };
    const actions = new Set(entries.map((e) => `${e.action}:${e.outcome}`));
    expect([...actions]).toEqual(
      expect.arrayContaining([
        'approval.request:pending',
        'approval.decide:approved',
        'approval.decide:denied',
        'tool.execute:ok',
        'tool.execute:refused',
        'tool.execute:error',
      ]),
    );
    expect(entries.find((e) => e.action === 'approval.decide')?.actor).toBe('owner');
    const page1 = (await (await h.api('/v1/audit?limit=3')).json()) as { entries: { id: number }[]; next: number };
    const page2 = (await (await h.api(`/v1/audit?limit=3&before=${page1.next}`)).json()) as { entries: { id: number }[] };
    expect(page1.entries.map((e) => e.id)).toEqual(entries.slice(0, 3).map((e) => e.id));
    expect(page2.entries.map((e) => e.id)).toEqual(entries.slice(3, 6).map((e) => e.id));
  });
});

describeWithHostTools(['bubblewrap'], 'shell approvals (real gateway, fake LLM, bubblewrap sandbox)', (bin) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { tools: { exec: { allow: ['echo', 'id'] }, bubblewrap: { path: bin.bubblewrap } } } });
  });
  afterAll(() => h.stop());

  const pendingFor = (command: string) =>
    waitFor(`a pending approval for ${command}`, async () => {
      const res = await h.api('/v1/approvals?status=pending');
      const { approvals } = (await res.json()) as { approvals: Approval[] };
      return approvals.find((a) => a.input.command === command);
    });

  const decide = (id: string, decision: 'approve' | 'deny', remember?: boolean) =>
    h.api(`/v1/approvals/${id}`, { json: { decision, ...(remember !== undefined ? { remember } : {}) } });

  it('pauses a shell call for approval, then runs it in the sandbox and answers', async () => {
    const command = 'echo approved-run';
    const chat = h.api('/v1/chat', { json: { message: shellCall(command) } });
    const approval = await pendingFor(command);
    expect(approval).toMatchObject({ tool: 'shell', status: 'pending' });
    // echo is allowed by tools.exec.allow without a spec: the prompt says its arguments are unchecked.
    expect(approval.input.approval_note).toContain("UNCHECKED: 'echo' has no spec in tools.exec.programs");
    await decide(approval.id, 'approve');
    const body = (await (await chat).json()) as { reply: string; sessionId: string };
    expect(body.reply).toBe('tool said: approved-run\n[exit code 0]');
  });

  it('refuses a command the exec policy rejects without asking anyone', async () => {
    const res = await h.api('/v1/chat', { json: { message: shellCall('echo hi; rm -rf /') } });
    const body = (await res.json()) as { reply: string };
    expect(body.reply).toContain("refused by exec policy: ';' chains commands");
  });

  it('tells the model when a shell call is denied', async () => {
    const command = 'echo never-runs';
    const chat = h.api('/v1/chat', { json: { message: shellCall(command) } });
    await decide((await pendingFor(command)).id, 'deny');
    const body = (await (await chat).json()) as { reply: string };
    expect(body.reply).toBe('tool said: denied: owner refused this shell call');
  });

  it('remembers an approval for the exact same command', async () => {
    const command = 'echo remember-me';
    const chat = h.api('/v1/chat', { json: { message: shellCall(command) } });
    await decide((await pendingFor(command)).id, 'approve', true);
    await chat;
    const second = (await (await h.api('/v1/chat', { json: { message: shellCall(command) } })).json()) as { reply: string };
    expect(second.reply).toContain('tool said: remember-me');
  });
});

describe('approval expiry', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { tools: { approval: { timeout: '1200ms' } } } });
  });
  afterAll(() => h.stop());

  it('expires an approval while the gateway is down and closes the turn after the restart', async () => {
    const chat = h.api('/v1/chat', { json: { message: writeCall('down-time.txt') } }).catch(() => undefined);
    const approval = await waitFor('the pending approval', async () => {
      const { approvals } = (await (await h.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
      return approvals.find((a) => a.input.path === 'down-time.txt');
    });
    await h.restart();
    await chat;
    const messages = await waitFor('the timed-out turn to close', async () => {
      const res = await h.api(`/v1/sessions/${approval.sessionId}/messages`);
      const { messages } = (await res.json()) as { messages: { role: string; content: string; status: string }[] };
      return messages.length === 4 ? messages : undefined;
    });
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'ok'],
      ['assistant', 'ok'],
      ['tool', 'error'],
      ['assistant', 'ok'],
    ]);
    expect(messages[3].content).toContain('tool said: denied: timed out');
  });

  it('tells the model "denied: timed out" when nobody answers', async () => {
    const body = (await (await h.api('/v1/chat', { json: { message: writeCall('too-late.txt') } })).json()) as { reply: string };
    expect(body.reply).toContain('tool said: denied: timed out');
    const { approvals } = (await (await h.api('/v1/approvals?status=expired')).json()) as { approvals: Approval[] };
    expect(approvals.filter((a) => a.input.path === 'too-late.txt')).toHaveLength(1);
  });
});
