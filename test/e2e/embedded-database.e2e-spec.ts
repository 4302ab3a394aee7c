import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseService } from '@nestclaw/db';
import { Harness, startHarness } from '../support/gateway-harness';

/**
 * The newcomer path: no DATABASE_URL, so nestclaw runs PostgreSQL under $NESTCLAW_HOME: the real
 * binaries from npm where they can run (here as root, through a user namespace), else PGlite.
 */
describe('embedded database (no DATABASE_URL)', () => {
  let h: Harness;
  // A first start runs initdb in WASM (seconds on an idle machine, over a minute on a loaded CI host).
  beforeAll(async () => {
    h = await startHarness({ embedded: true });
  }, 180_000);
  afterAll(() => h.stop());

  it('creates the database under $NESTCLAW_HOME/postgres with real PostgreSQL and answers a chat turn', async () => {
    expect(h.env.DATABASE_URL).toBeUndefined();
    expect(h.gateway.app.get(DatabaseService).embedded?.engine).toBe('native');
    expect(existsSync(join(h.home, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(h.home, 'pgdata'))).toBe(false);
    const res = await h.api('/v1/chat', { json: { message: '嵌入式数据库你好' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { reply: string }).reply).toBe('echo: 嵌入式数据库你好');
    const health = (await (await fetch(`${h.gateway.url}/health`)).json()) as { database: string };
    expect(health.database).toBe('up');
  });

  it('keeps the conversation across a restart', async () => {
    const { sessionId } = (await (await h.api('/v1/chat', { json: { message: 'persist me' } })).json()) as { sessionId: string };
    await h.restart();
    const { messages } = (await (await h.api(`/v1/sessions/${sessionId}/messages`)).json()) as { messages: { content: string }[] };
    expect(messages.map((m) => m.content)).toEqual(['persist me', 'echo: persist me']);
  });

  it('streams over SSE on the embedded database too', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'stream', stream: true } });
    const text = await res.text();
    expect(text).toContain('event: token');
    expect(text).toContain('event: done');
  });
});

describe('embedded database on PGlite (database.embedded_engine: pglite, the fallback)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ embedded: true, env: { NESTCLAW_DATABASE__EMBEDDED_ENGINE: 'pglite' } });
    // PGlite's initdb runs WASM in a child process: ~10 s alone, minutes on a loaded CI machine.
  }, 300_000);
  afterAll(() => h.stop());

  it('keeps its data under $NESTCLAW_HOME/pgdata and answers a chat turn', async () => {
    expect(h.gateway.app.get(DatabaseService).embedded?.engine).toBe('pglite');
    expect(existsSync(join(h.home, 'pgdata', 'PG_VERSION'))).toBe(true);
    const res = await h.api('/v1/chat', { json: { message: 'PGlite 你好' } });
    expect(((await res.json()) as { reply: string }).reply).toBe('echo: PGlite 你好');
  });

  it('answers concurrent turns while finished turns are remembered in the background', async () => {
    // PGlite serves every connection from one session, and pglite-socket queues protocol messages, not
    // queries: two connections' parameterised queries interleaved and broke each other (issue 23's bench).
    for (let round = 0; round < 3; round++) {
      const replies = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const res = await h.api('/v1/chat', { json: { message: `并发 ${round}-${i} with some text to remember` } });
          return { status: res.status, body: (await res.json()) as { reply?: string } };
        }),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
      replies.forEach((r, i) => expect(r.body.reply).toBe(`echo: 并发 ${round}-${i} with some text to remember`));
    }
  });
});
