import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAiServer } from '../fixtures/fake-openai.server';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';
import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';
import { createTestDatabase, seedEmbeddedHome, TestDatabase } from '../support/test-database';

type Msg = { seq: number; role: string; content: string; status: string };

describe('history survives a restart', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('loads the earlier conversation after a clean restart', async () => {
    const { sessionId } = (await (await h.api('/v1/chat', { json: { message: 'before restart' } })).json()) as { sessionId: string };
    await h.restart();
    const res = await h.api('/v1/chat', { json: { message: 'after restart', sessionId } });
    expect(res.status).toBe(200);
    const sent = h.llm.requests[h.llm.requests.length - 1].body.messages.map((m) => m.content);
    expect(sent.slice(1)).toEqual(['before restart', 'echo: before restart', 'after restart']);
  });
});

describe('kill -9 in the middle of a streamed reply', () => {
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let gw: GatewayProcess | undefined;

  const api = (path: string, json?: unknown) => gw!.api(path, { json });

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-crash-'));
    seedEmbeddedHome(home);
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({ models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'k', model: 'fake-model' } } }),
    );
    env = { PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: TEST_TOKEN, ...(db.url ? { DATABASE_URL: db.url } : {}) };
  });

  afterAll(async () => {
    await gw?.stop();
    await llm.stop();
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps the history, marks the turn interrupted, and the next turn works', async () => {
    gw = await spawnGateway(env);
    const first = (await (await api('/v1/chat', { message: 'one' })).json()) as { sessionId: string };
    const sessionId = first.sessionId;

    llm.enqueue({ kind: 'text', text: 'x'.repeat(2000), tokenDelayMs: 10 });
    const res = await api('/v1/chat', { message: 'two', sessionId, stream: true });
    const reader = res.body!.getReader();
    const { value } = await reader.read(); // at least one event has arrived: the reply is mid-stream
    expect(new TextDecoder().decode(value)).toContain('event: token');
    await gw.kill9();
    await reader.read().catch(() => undefined);

    gw = await spawnGateway(env);
    const history = (await (await api(`/v1/sessions/${sessionId}/messages`)).json()) as { messages: Msg[] };
    expect(history.messages.map((m) => [m.role, m.content, m.status])).toEqual([
      ['user', 'one', 'ok'],
      ['assistant', 'echo: one', 'ok'],
      ['user', 'two', 'interrupted'],
    ]);

    const next = await api('/v1/chat', { message: 'three', sessionId });
    expect(next.status).toBe(200);
    expect(((await next.json()) as { reply: string }).reply).toBe('echo: three');
    const sent = llm.requests[llm.requests.length - 1].body.messages.map((m) => m.content);
    expect(sent.slice(1)).toEqual(['one', 'echo: one', 'two', 'three']);
  });
});
