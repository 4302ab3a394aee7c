import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { parse, stringify } from 'yaml';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import { PairedTokenService } from '@nestclaw/security';
import { eventually } from '../../support/eventually';
import { describeWithHostTools } from '../../support/host-tools';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { parseSse } from '../../support/sse';

const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');

interface ChatReply {
  sessionId: string;
  reply: string;
}
interface PendingApproval {
  id: string;
  tool: string;
  sessionId: string;
  turnId: string;
  input: { cli: string; prompt: string[] };
}

/**
 * Issue 26's "the same through POST /v1/chat on a CLI-bound session": an API client binds its session to
 * the fake CLI with `/cli use`, drives it in a real tmux, and decides its questions through the approvals
 * API, as a chat does with buttons. No channel is configured: the token is the caller.
 */
describeWithHostTools(['tmux'], 'CLI bridge driven through POST /v1/chat and the WebSocket chat', () => {
  let h: Harness;
  let workDir: string;
  let tmux: TmuxDriver;
  /** The owner's session bound to the CLI (the first test binds it). */
  let sessionId: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-api-'));
    h = await startHarness({
      env: { NESTCLAW_TMUX_SOCKET: `nestclaw-api-test-${process.pid}` },
      config: {
        // The tests poll GET /v1/approvals while a chat request waits.
        security: { rate_limit: { per_token: { limit: 100_000, window: '1m' } } },
        tools: { approval: { timeout: '30s' } },
        clis: {
          fake: {
            command: process.execPath,
            args: [FAKE_CLI],
            allowed_dirs: [workDir],
            done_after: '800ms',
            watchdog: '6s',
          },
        },
      },
    });
    tmux = h.gateway.app.get(TmuxDriver);
  });
  afterAll(async () => {
    for (const s of (await tmux?.list()) ?? []) await tmux.kill(s);
    await h?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const chat = (body: Record<string, unknown>, token?: string) =>
    h.api('/v1/chat', { json: body, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
  const chatOk = async (body: Record<string, unknown>, token?: string): Promise<ChatReply> => {
    const res = await chat(body, token);
    const json = (await res.json()) as ChatReply;
    if (res.status !== 200) throw new Error(`POST /v1/chat answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  /** The CLI's question on this session, once it is pending in GET /v1/approvals. */
  const pendingQuestion = (session: string) =>
    eventually(
      'the CLI question in GET /v1/approvals',
      async () => {
        const { approvals } = (await (await h.api('/v1/approvals?status=pending')).json()) as { approvals: PendingApproval[] };
        return approvals.find((a) => a.sessionId === session && a.tool === 'cli:fake');
      },
      15_000,
    );
  const decide = (id: string, decision: 'approve' | 'deny') => h.api(`/v1/approvals/${id}`, { json: { decision } });

  it('binds a new session to the CLI with `/cli use` as the message, in a tmux session of its own', async () => {
    const bound = await chatOk({ message: '/cli use fake' });
    expect(bound.reply).toBe(
      `Bound to fake in ${workDir} (tmux session nestclaw-fake-1). Your messages now go to it as typed; /cli exit returns to the assistant.`,
    );
    sessionId = bound.sessionId;
    expect(await tmux.list()).toEqual(['nestclaw-fake-1']);
    expect(await h.query(`SELECT session_key, cli, bound_by FROM cli_bindings`)).toEqual([
      { session_key: `api:${sessionId}`, cli: 'fake', bound_by: 'token:owner' },
    ]);
    // `/cli status` answers in the same session, as in a chat.
    const status = await chatOk({ message: '/cli status', sessionId });
    expect(status.reply).toBe(`Bound to fake in ${workDir}: tmux session nestclaw-fake-1 (running).`);
  });

  it('sends a multi-line Chinese message verbatim and returns the answer once, kept as a turn of the session', async () => {
    const llmCalls = h.llm.requests.length;
    const text = '第一行：分析这段错误日志\n第二行 with English';
    const answered = await chatOk({ message: text, sessionId });
    expect(answered).toEqual({ sessionId, reply: `echo: ${text}`, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } });
    expect(h.llm.requests.length).toBe(llmCalls);
    const { messages } = (await (await h.api(`/v1/sessions/${encodeURIComponent(sessionId)}/messages`)).json()) as {
      messages: { role: string; content: string; status: string; turnId: string }[];
    };
    const turn = messages.filter((m) => m.content.includes('第一行'));
    expect(turn.map((m) => [m.role, m.content, m.status])).toEqual([
      ['user', text, 'ok'],
      ['assistant', `echo: ${text}`, 'ok'],
    ]);
    expect(turn[0].turnId).toBe(turn[1].turnId);
    const log = await h.query<{ direction: string; channel: string }>(
      `SELECT direction, channel FROM conversation_log WHERE session_id = $1 AND content LIKE '%第一行%' ORDER BY id`,
      [sessionId],
    );
    expect(log).toEqual([
      { direction: 'in', channel: 'http' },
      { direction: 'out', channel: 'http' },
    ]);
    const audit = await h.query<{ action: string; actor: string }>(
      `SELECT action, actor FROM audit_log WHERE action LIKE 'cli.%' AND session_id = $1 AND detail->>'text' LIKE '%第一行%' ORDER BY id`,
      [sessionId],
    );
    expect(audit).toEqual([
      { action: 'cli.input', actor: 'token:owner' },
      { action: 'cli.output', actor: 'cli:fake' },
    ]);
  });

  it('turns a [y/N] question into an approval in GET /v1/approvals; approving it through the API lets the answer come back', async () => {
    const answer = chatOk({ message: 'clean up please ask-yn', sessionId });
    const question = await pendingQuestion(sessionId);
    expect(question.input.cli).toBe('fake');
    expect(question.input.prompt.join('\n')).toContain('Run rm -rf build? [y/N]');
    expect((await decide(question.id, 'approve')).status).toBe(201);
    expect((await answer).reply).toContain('answer: y');
    // The approval names the transcript turn the question came up in.
    const rows = await h.query<{ role: string; content: string }>(`SELECT role, content FROM messages WHERE turn_id = $1 ORDER BY seq`, [
      question.turnId,
    ]);
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant']);
    expect(rows[0].content).toBe('clean up please ask-yn');
  });

  it('streams an arrow-key menu as an approval_required event; denying it picks the No option', async () => {
    const streamed = chat({ message: 'edit it ask-menu', sessionId, stream: true }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
    const question = await pendingQuestion(sessionId);
    expect(question.input.prompt.join('\n')).toContain('1. Yes');
    expect((await decide(question.id, 'deny')).status).toBe(201);
    const { status, text } = await streamed;
    expect(status).toBe(200);
    const events = parseSse(text);
    expect(events.map((e) => e.event)).toEqual(['approval_required', 'done']);
    expect(JSON.parse(events[0].data)).toMatchObject({ approvalId: question.id, tool: 'cli:fake' });
    expect(JSON.parse(events[1].data)).toMatchObject({ sessionId, reply: expect.stringContaining('choice: No') });
  });

  it('runs messages of one session one at a time, in the order they came', async () => {
    const first = chatOk({ message: 'slow first', sessionId });
    await eventually('the CLI busy with the first', async () => (await tmux.capture('nestclaw-fake-1')).includes('Thinking'));
    const second = chatOk({ message: 'then second', sessionId });
    expect([(await first).reply, (await second).reply]).toEqual(['echo: slow first', 'echo: then second']);
    const rows = await h.query<{ role: string; content: string }>(
      `SELECT role, content FROM messages WHERE session_id = $1 AND (content LIKE '%slow first' OR content LIKE '%then second') ORDER BY seq`,
      [sessionId],
    );
    expect(rows.map((r) => r.content)).toEqual(['slow first', 'echo: slow first', 'then second', 'echo: then second']);
  });

  it('drives the bound session through a WebSocket chat frame too', async () => {
    const ws = new WebSocket(`${h.gateway.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    try {
      const frames: { type: string; reply?: string; sessionId?: string }[] = [];
      const done = new Promise<void>((resolve) =>
        ws.on('message', (d: Buffer) => {
          const f = JSON.parse(d.toString()) as { type: string; reply?: string };
          frames.push(f);
          if (f.type === 'done' || f.type === 'error') resolve();
        }),
      );
      ws.send(JSON.stringify({ type: 'chat', id: 'c1', message: 'over the socket', sessionId }));
      await done;
      expect(frames.map((f) => f.type)).toEqual(['started', 'done']);
      expect(frames[1]).toMatchObject({ sessionId, reply: 'echo: over the socket' });
    } finally {
      ws.close();
    }
  });

  it('refuses a token without the admin scope that the CLI does not list, with 403 and nothing recorded', async () => {
    const { token } = await h.gateway.app.get(PairedTokenService).issue('laptop', ['chat']);
    const sessions = await h.query(`SELECT id FROM sessions`);
    for (const body of [{ message: '/cli use fake' }, { message: '/keys ctrl-c', sessionId }, { message: 'rm -rf /', sessionId }]) {
      const res = await chat(body, token);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: {
          code: 'forbidden',
          message: 'Only the owner and the people listed for a CLI may drive it: it runs commands on the owner’s machine.',
        },
      });
    }
    expect(await h.query(`SELECT id FROM sessions`)).toEqual(sessions);
    expect(await tmux.list()).toEqual(['nestclaw-fake-1']);
    // Listing what is configured is no one's refusal, as in a chat.
    expect((await chatOk({ message: '/cli list' }, token)).reply).toContain('fake (generic:');
  });

  it('lets a token listed as token:<id> in allow_from drive the CLI in its own session, which other tokens cannot use', async () => {
    const listed = await h.gateway.app.get(PairedTokenService).issue('listed', ['chat']);
    const file = join(h.home, 'config.yaml');
    const config = parse(readFileSync(file, 'utf8')) as { clis: { fake: { allow_from?: string[] } } };
    config.clis.fake.allow_from = [`token:${listed.info.id}`];
    writeFileSync(file, stringify(config));
    await h.restart();
    tmux = h.gateway.app.get(TmuxDriver);
    const bound = await chatOk({ message: '/cli use fake' }, listed.token);
    expect(bound.reply).toContain('(tmux session nestclaw-fake-2)');
    expect((await chatOk({ message: 'mine', sessionId: bound.sessionId }, listed.token)).reply).toBe('echo: mine');
    // Another listed-less token is refused; the owner's session was re-attached and still answers.
    const other = await h.gateway.app.get(PairedTokenService).issue('other', ['chat']);
    expect((await chat({ message: 'yours?', sessionId: bound.sessionId }, other.token)).status).toBe(403);
    expect((await chatOk({ message: 'after the restart', sessionId })).reply).toBe('echo: after the restart');
    // And the listed token cannot reach the owner's session.
    expect((await chat({ message: 'theirs', sessionId }, listed.token)).status).toBe(404);
    expect((await chatOk({ message: '/cli exit', sessionId: bound.sessionId }, listed.token)).reply).toContain('Unbound from fake');
  });

  it('answers `/cli use` naming a session that does not exist with 404', async () => {
    const res = await chat({ message: '/cli use fake', sessionId: 'no-such-session' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
  });

  it('unbinds with `/cli exit`: the session ends and the next message goes to the assistant', async () => {
    expect((await chatOk({ message: '/cli exit', sessionId })).reply).toContain('Unbound from fake');
    expect(await tmux.list()).toEqual([]);
    expect(await h.query(`SELECT 1 FROM cli_bindings`)).toEqual([]);
    const llmCalls = h.llm.requests.length;
    await chatOk({ message: 'hello assistant', sessionId });
    expect(h.llm.requests.length).toBe(llmCalls + 1);
  });
});
