import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import WebSocket from 'ws';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { eventually } from '../../support/eventually';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { parseSse } from '../../support/sse';
import { clusterDatabase } from '../../support/cluster-database';
import type { TestDatabase } from '../../support/test-database';

const TOKEN = 'cluster-token-0123456789';
/** Issue 24: a cancel, a decision or a session event reaches the replica it concerns within a second. */
const WITHIN_MS = 1000;

interface Approval {
  id: string;
  sessionId: string;
  turnId: string;
  input: { path?: string };
  status: string;
}
interface SessionEventFrame {
  type: string;
  id: string;
  kind?: string;
  sessionId?: string;
  turnId?: string;
  status?: string;
}

const writeCall = (path: string) => `save it [tool:file_write ${JSON.stringify({ path, content: path })}]`;

describe('two replicas on one PostgreSQL: approvals, cancels and live events cross over', () => {
  let db: TestDatabase;
  let llm: FakeOpenAiServer;
  let pool: Pool;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const homes: string[] = [];

  const replica = async (): Promise<GatewayProcess> => {
    const home = mkdtempSync(join(tmpdir(), 'nestclaw-cluster-'));
    homes.push(home);
    const config = {
      models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
    };
    writeFileSync(join(home, 'config.yaml'), stringify(config));
    return spawnGateway({ PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: TOKEN, DATABASE_URL: db.url });
  };

  beforeAll(async () => {
    db = await clusterDatabase();
    llm = new FakeOpenAiServer();
    await llm.start();
    a = await replica();
    b = await replica();
    pool = new Pool({ connectionString: db.url, max: 2 });
    // pool.end() returns before its idle clients have ended, so the embedded server's fast shutdown in
    // afterAll can end one under it (57P01): expected then, and not an unhandled error of the test process.
    pool.on('error', () => undefined);
  }, 120_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await pool?.end();
    await llm?.stop();
    await db?.drop();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  const rows = async <R>(sql: string, values: unknown[]) => (await pool.query(sql, values)).rows as R[];

  /** A WebSocket on `g`, with every frame it received. */
  async function socket(g: GatewayProcess): Promise<{ ws: WebSocket; frames: (SessionEventFrame & { at: number })[] }> {
    const ws = new WebSocket(`${g.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const frames: (SessionEventFrame & { at: number })[] = [];
    ws.on('message', (data: WebSocket.RawData) => frames.push({ ...(JSON.parse(data.toString()) as SessionEventFrame), at: Date.now() }));
    return { ws, frames };
  }

  it('resumes a turn paused on A exactly once when the approval is decided through B', async () => {
    const path = 'decided-elsewhere.txt';
    const requestsBefore = llm.chatRequests;
    const chat = a.api('/v1/chat', { json: { message: writeCall(path) } });
    const approval = await eventually('the approval pending, as B lists it', async () => {
      const { approvals } = (await (await b.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
      return approvals.find((x) => x.input.path === path);
    });
    // The control UI's view, on B: the decision and the end of the turn it resumes on A.
    const { ws, frames } = await socket(b);
    ws.send(JSON.stringify({ type: 'subscribe', id: 'ui', sessionId: approval.sessionId }));
    await eventually('the subscription', () => frames.some((f) => f.type === 'subscribed'));
    const decided = await b.api(`/v1/approvals/${approval.id}`, { json: { decision: 'approve' } });
    expect(decided.status).toBe(201);
    // A second decision (another replica, another person) loses: the first one holds.
    expect((await a.api(`/v1/approvals/${approval.id}`, { json: { decision: 'deny' } })).status).toBe(409);

    // A's client, waiting all along, gets the answer of the resumed turn.
    const res = await chat;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { reply: string }).reply).toBe(`tool said: wrote ${path.length} bytes to ${path}`);
    // One tool run, one final answer, two model calls (the call and the answer after it).
    const stored = await rows<{ role: string; status: string; tool_calls: unknown }>(
      `SELECT role, status, tool_calls FROM messages WHERE turn_id = $1 ORDER BY seq`,
      [approval.turnId],
    );
    expect(stored.filter((m) => m.role === 'tool')).toHaveLength(1);
    expect(stored.filter((m) => m.role === 'assistant' && !m.tool_calls && m.status === 'ok')).toHaveLength(1);
    expect(stored.find((m) => m.role === 'user')?.status).toBe('ok');
    expect(llm.chatRequests - requestsBefore).toBe(2);
    const [row] = await rows<{ waiting_replica: string | null }>(`SELECT waiting_replica FROM tool_approvals WHERE id = $1`, [approval.id]);
    expect(row.waiting_replica).toBeNull();
    await eventually('turn_finished on B', () => frames.some((f) => f.kind === 'turn_finished'), 5000);
    ws.close();
    expect(frames.filter((f) => f.type === 'session_event').map((f) => [f.kind, f.status])).toEqual([
      ['approval_decided', 'approved'],
      ['turn_finished', 'ok'],
    ]);
  });

  it('stops a slow-streaming turn running on A within a second of a cancel sent through B', async () => {
    const first = (await (await a.api('/v1/chat', { json: { message: 'hello' } })).json()) as { sessionId: string };
    const sessionId = first.sessionId;
    // About 30 s of tokens unless stopped.
    llm.enqueue({ kind: 'text', text: 'word '.repeat(300), tokenDelayMs: 100 });
    const res = await a.api('/v1/chat', { json: { message: 'tell me a long story', sessionId, stream: true } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: token')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before any token: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    const cancelledAt = Date.now();
    const cancel = await b.api(`/v1/sessions/${sessionId}/cancel`, { json: {} });
    expect(cancel.status).toBe(202);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const stoppedMs = Date.now() - cancelledAt;
    console.log(`[cross-replica] cancel through B stopped the turn on A in ${stoppedMs} ms`);
    expect(stoppedMs).toBeLessThan(WITHIN_MS);
    const last = parseSse(text).at(-1)!;
    expect(['done', 'error']).toContain(last.event);
    const turn = await eventually('the cancelled turn closed as interrupted', async () => {
      const [u] = await rows<{ status: string }>(
        `SELECT status FROM messages WHERE session_id = $1 AND role = 'user' ORDER BY seq DESC LIMIT 1`,
        [sessionId],
      );
      return u?.status === 'interrupted' ? u : undefined;
    });
    expect(turn.status).toBe('interrupted');
    // Cancelling again, after the turn ended, is harmless.
    expect((await b.api(`/v1/sessions/${sessionId}/cancel`, { json: {} })).status).toBe(202);
    expect((await a.api('/v1/chat', { json: { message: 'still there?', sessionId } })).status).toBe(200);
  });

  it("shows a WebSocket subscriber on B the started and finished events of A's turn within a second", async () => {
    const first = (await (await a.api('/v1/chat', { json: { message: 'open a session' } })).json()) as { sessionId: string };
    const { ws, frames } = await socket(b);
    try {
      ws.send(JSON.stringify({ type: 'subscribe', id: 'watch', sessionId: first.sessionId }));
      await eventually('the subscription', () => frames.some((f) => f.type === 'subscribed'));
      llm.enqueue({ kind: 'text', text: 'a reply that takes a moment', delayMs: 300 });
      const sentAt = Date.now();
      const res = await a.api('/v1/chat', { json: { message: 'watched turn', sessionId: first.sessionId } });
      const answeredAt = Date.now();
      expect(res.status).toBe(200);
      const events = () => frames.filter((f) => f.type === 'session_event');
      // The watched turn's pair: the opening turn's turn_finished may still reach B after the subscription
      // (it crosses over by NOTIFY), so events are matched by the turn that started after it.
      const started = await eventually('turn_started on B', () => events().find((f) => f.kind === 'turn_started'), 5000);
      const finished = await eventually(
        'turn_finished on B',
        () => events().find((f) => f.kind === 'turn_finished' && f.turnId === started.turnId),
        5000,
      );
      expect(started).toMatchObject({ sessionId: first.sessionId, status: 'pending' });
      expect(finished).toMatchObject({ sessionId: first.sessionId, turnId: started.turnId, status: 'ok' });
      console.log(
        `[cross-replica] on B: turn_started ${started.at - sentAt} ms after the request, turn_finished ${finished.at - answeredAt} ms after the answer`,
      );
      expect(started.at - sentAt).toBeLessThan(WITHIN_MS);
      expect(finished.at - answeredAt).toBeLessThan(WITHIN_MS);
      // Only this session's events: nothing from the other tests' sessions.
      expect(events().every((f) => f.sessionId === first.sessionId)).toBe(true);
    } finally {
      ws.close();
    }
  });

  it('stops a turn running on A within a second of a WebSocket cancel naming its session, sent to B', async () => {
    const first = (await (await a.api('/v1/chat', { json: { message: 'hello again' } })).json()) as { sessionId: string };
    llm.enqueue({ kind: 'text', text: 'word '.repeat(300), tokenDelayMs: 100 });
    const res = await a.api('/v1/chat', { json: { message: 'another long story', sessionId: first.sessionId, stream: true } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: token')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before any token: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    const { ws, frames } = await socket(b);
    try {
      const cancelledAt = Date.now();
      ws.send(JSON.stringify({ type: 'cancel', id: 'stop-it', sessionId: first.sessionId }));
      while (!(await reader.read()).done);
      const stoppedMs = Date.now() - cancelledAt;
      console.log(`[cross-replica] WS cancel on B stopped the turn on A in ${stoppedMs} ms`);
      expect(stoppedMs).toBeLessThan(WITHIN_MS);
      await eventually('the cancel acknowledged', () => frames.some((f) => f.type === 'cancelling' && f.id === 'stop-it'));
    } finally {
      ws.close();
    }
  });

  it('resumes on B, once, a turn whose replica A was killed while it waited for an approval decided through B', async () => {
    const path = 'asker-killed.txt';
    const requestsBefore = llm.chatRequests;
    void a.api('/v1/chat', { json: { message: writeCall(path) } }).catch(() => undefined);
    const approval = await eventually('the approval pending', async () => {
      const { approvals } = (await (await b.api('/v1/approvals?status=pending')).json()) as { approvals: Approval[] };
      return approvals.find((x) => x.input.path === path);
    });
    await a.kill9();
    expect((await b.api(`/v1/approvals/${approval.id}`, { json: { decision: 'approve' } })).status).toBe(201);
    // A's row goes stale after 6 s; B's sweep (every 10 s) then takes the continuation.
    const stored = await eventually(
      'the turn resumed on B and answered',
      async () => {
        const rowsNow = await rows<{ role: string; status: string; tool_calls: unknown }>(
          `SELECT role, status, tool_calls FROM messages WHERE turn_id = $1 ORDER BY seq`,
          [approval.turnId],
        );
        return rowsNow.find((m) => m.role === 'user')?.status === 'ok' ? rowsNow : undefined;
      },
      30_000,
    );
    expect(stored.filter((m) => m.role === 'tool')).toHaveLength(1);
    expect(stored.filter((m) => m.role === 'assistant' && !m.tool_calls && m.status === 'ok')).toHaveLength(1);
    expect(llm.chatRequests - requestsBefore).toBe(2);
  }, 60_000);
});
