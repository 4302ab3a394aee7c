import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { stringify } from 'yaml';
import { telegramHtmlToText } from '@nestclaw/channel';
import { startEmbeddedPostgres } from '@nestclaw/db';
import { FakeOpenAiServer } from '../fixtures/fake-openai.server';
import { FakeTelegramServer, FakeUser } from '../fixtures/fake-telegram.server';
import { eventually } from '../support/eventually';
import { GatewayProcess, spawnGateway } from '../support/gateway-process';
import { TEST_TOKEN } from '../support/gateway-harness';

type Msg = { seq: number; role: string; content: string; status: string };

const TURNS = 5;
// A first start on an empty home runs initdb (seconds idle, far more on a loaded CI machine).
const BOOT_MS = 170_000;

/**
 * Issue 23 item 5: a reply the client received survives the embedded database dying with the
 * gateway. The whole process group (gateway, embedded PostgreSQL and its backends) gets SIGKILL at
 * once, as `docker kill`, a cgroup OOM kill or a power cut does; no fast shutdown flushes the WAL.
 * With asynchronous commit the last turns' WAL is still in PostgreSQL's buffers at that moment.
 */
describe('acknowledged replies survive a kill of the whole process group (embedded database)', () => {
  let llm: FakeOpenAiServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let gw: GatewayProcess | undefined;

  const api = (path: string, json?: unknown) => gw!.api(path, { json });
  // A session the database lost altogether answers 404: nothing of it survived.
  const transcript = async (sessionId: string): Promise<Msg[]> => {
    const res = await api(`/v1/sessions/${sessionId}/messages`);
    return res.status === 404 ? [] : ((await res.json()) as { messages: Msg[] }).messages;
  };

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-durable-'));
    writeFileSync(
      join(home, 'config.yaml'),
      // The default (`synchronous_commit: auto`), no DATABASE_URL: the embedded database.
      stringify({ models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'k', model: 'fake-model' } } }),
    );
    env = { PATH: process.env.PATH, NESTCLAW_HOME: home, NESTCLAW_TOKEN: TEST_TOKEN };
  });

  afterAll(async () => {
    await gw?.stop();
    await llm.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps every acknowledged reply, and a turn in flight is never a reply the client saw that was lost', async () => {
    gw = await spawnGateway(env, BOOT_MS, { ownProcessGroup: true });

    // N turns, each acknowledged to the client (200 with its reply), in one session and in sessions of their own.
    const acknowledged: { sessionId: string; message: string; reply: string }[] = [];
    let sessionId: string | undefined;
    for (let i = 0; i < TURNS; i++) {
      const message = `回合 ${i}`;
      const res = await api('/v1/chat', { message, ...(sessionId ? { sessionId } : {}) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { sessionId: string; reply: string };
      sessionId = body.sessionId;
      acknowledged.push({ sessionId, message, reply: body.reply });
    }
    const concurrent = await Promise.all(
      Array.from({ length: TURNS }, async (_, i) => {
        const message = `parallel ${i}`;
        const res = await api('/v1/chat', { message });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { sessionId: string; reply: string };
        return { sessionId: body.sessionId, message, reply: body.reply };
      }),
    );
    acknowledged.push(...concurrent);

    // One more turn, in flight: the model has it and has not answered when everything dies.
    const asked = llm.requests.length;
    llm.enqueue({ kind: 'hang' });
    const inFlight = api('/v1/chat', { message: 'in flight', sessionId }).then(
      async (res) => ((await res.json()) as { reply?: string }).reply,
      () => undefined,
    );
    await eventually('the model to receive the turn in flight', () => llm.requests.length > asked);
    await gw.killGroup9();
    const seenInFlight = await inFlight;

    gw = await spawnGateway(env, BOOT_MS, { ownProcessGroup: true });
    const lost: string[] = [];
    for (const turn of acknowledged) {
      const messages = await transcript(turn.sessionId);
      const asked = messages.findIndex((m) => m.role === 'user' && m.content === turn.message);
      const answered = messages.slice(asked + 1).find((m) => m.role === 'assistant');
      if (asked < 0 || answered?.content !== turn.reply) lost.push(`${turn.message} → ${turn.reply}`);
    }
    expect(lost).toEqual([]);

    // The turn in flight: absent and unanswered, or present (interrupted) — a reply the client saw is never lost.
    const last = await transcript(sessionId!);
    const at = last.findIndex((m) => m.role === 'user' && m.content === 'in flight');
    const reply = at < 0 ? undefined : last.slice(at + 1).find((m) => m.role === 'assistant');
    if (seenInFlight !== undefined) expect(reply?.content).toBe(seenInFlight);
    else expect(reply).toBeUndefined();
    if (at >= 0 && !reply) expect(last[at].status).toBe('interrupted');
  }, 400_000);

  it('keeps every reply a Telegram user saw: in the transcript and in outbound_messages, never sent twice', async () => {
    await gw?.stop();
    const tg = new FakeTelegramServer();
    await tg.start();
    const users: FakeUser[] = Array.from({ length: TURNS }, (_, i) => ({ id: 7100 + i, first_name: `User${i}` }));
    const tgHome = mkdtempSync(join(tmpdir(), 'nestclaw-durable-tg-'));
    writeFileSync(
      join(tgHome, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'k', model: 'fake-model' } },
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: users.map((u) => u.id), poll_timeout: 1 },
        },
      }),
    );
    const tgEnv = { ...env, NESTCLAW_HOME: tgHome };
    const shown = (u: FakeUser) => tg.sentTo(u.id).map((m) => telegramHtmlToText(m.current));
    try {
      gw = await spawnGateway(tgEnv, BOOT_MS, { ownProcessGroup: true });
      users.forEach((u, i) => tg.dm(u, `问题 ${i}`));
      // Acknowledged: each user has been shown the reply. The group dies the moment the last one is.
      await tg.waitFor(() => users.every((u, i) => shown(u).includes(`echo: 问题 ${i}`)), 60_000, 'every reply shown');
      await gw.killGroup9();
      gw = undefined;

      // Straight from the data directory, before anything could re-create a lost row.
      const embedded = await startEmbeddedPostgres(tgHome, () => undefined);
      const c = new Client({ connectionString: embedded.url });
      try {
        await c.connect();
        const { rows } = await c.query<{ chat_id: string; content: string; platform_message_id: string | null }>(
          `SELECT chat_id, content, platform_message_id FROM outbound_messages WHERE channel = 'telegram'`,
        );
        const { rows: replies } = await c.query<{ content: string }>(
          `SELECT content FROM messages WHERE role = 'assistant' AND status = 'ok'`,
        );
        for (const [i, u] of users.entries()) {
          // The message the user saw is recorded with its platform id. Its content may still be the preview's:
          // the final text is an edit of that recorded message, recorded once Telegram took it, and after a
          // restart the same message is edited again, never sent anew (checked below).
          const out = rows.filter((r) => r.chat_id === String(u.id) && r.platform_message_id !== null);
          expect(out.length).toBeGreaterThanOrEqual(1);
          expect(replies.map((r) => r.content)).toContain(`echo: 问题 ${i}`);
        }
      } finally {
        await c.end().catch(() => undefined);
        await embedded.stop();
      }

      // After a restart, a new message from each user is answered, and no earlier reply was sent again.
      gw = await spawnGateway(tgEnv, BOOT_MS, { ownProcessGroup: true });
      users.forEach((u) => tg.dm(u, 'again'));
      await tg.waitFor(() => users.every((u) => shown(u).includes('echo: again')), 60_000, 'the next messages answered');
      for (const [i, u] of users.entries()) expect(shown(u).filter((t) => t === `echo: 问题 ${i}`)).toHaveLength(1);
    } finally {
      await gw?.stop();
      gw = undefined;
      await tg.stop();
      rmSync(tgHome, { recursive: true, force: true });
    }
  }, 500_000);
});
