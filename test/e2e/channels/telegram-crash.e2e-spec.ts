import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { stringify } from 'yaml';
import { interruptedNotice } from '@nestclaw/agent';
import { telegramHtmlToText } from '@nestclaw/channel';
import { startEmbeddedPostgres } from '@nestclaw/db';
import { FakeOpenAiServer, RecordedRequest } from '../../fixtures/fake-openai.server';
import { FakeTelegramServer, FakeUser, SentMessage } from '../../fixtures/fake-telegram.server';
import { LoopbackHttpServer } from '../../fixtures/loopback-http.server';
import { GatewayProcess, spawnGateway } from '../../support/gateway-process';
import { createTestDatabase, realPostgresAvailable, TestDatabase } from '../../support/test-database';

const users: FakeUser[] = [
  { id: 5001, first_name: 'Ann' },
  { id: 5002, first_name: 'Ben' },
  { id: 5003, first_name: 'Cat' },
  { id: 5004, first_name: 'Dan' },
];
/** Only in the `notify` test, so the others' chats stay as they expect. */
const eve: FakeUser = { id: 5005, first_name: 'Eve' };
/** Only in the side-effect test. */
const fay: FakeUser = { id: 5006, first_name: 'Fay' };

/** An order endpoint that records every request and answers none: the tool call is in flight at the kill. */
class OrderSink extends LoopbackHttpServer {
  readonly received: { method: string; body: string }[] = [];
  get url(): string {
    return this.origin;
  }
  protected async handle(req: import('node:http').IncomingMessage): Promise<void> {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    this.received.push({ method: req.method ?? '', body });
  }
}

/** Small deterministic PRNG (mulberry32): a failing run can be replayed with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lastUser = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
const CALL_ID = /^nestclaw-call-(\d+)$/;
/** A boot may take long on a loaded machine (2 cores shared with builds): the kills count lives, not seconds. Test timeouts allow for it. */
const BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);

/**
 * The 30-kill run takes 6–8 minutes: it runs on the first database run only. That is the server when
 * one answers, else the embedded database of a run that did not point the probe elsewhere; CI's second
 * run (embedded, NESTCLAW_TEST_PG_URL set to a closed port) skips it, visibly.
 */
function firstDatabaseRun(): boolean {
  return realPostgresAvailable() || !process.env.NESTCLAW_TEST_PG_URL;
}
const chaos = firstDatabaseRun() ? it : it.skip;

describe('Telegram channel across a crash', () => {
  let tg: FakeTelegramServer;
  let llm: FakeOpenAiServer;
  let db: TestDatabase;
  let sql: Sql | undefined;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let running: GatewayProcess | undefined;

  /** The gateway's config, with `channels.recovery` and `tools` as given. */
  const writeConfig = (recovery?: { interrupted_turns: 'notify' | 'rerun' }, tools?: Record<string, unknown>) =>
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        models: { fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        channels: {
          telegram: {
            enabled: true,
            token: tg.token,
            api_root: tg.url,
            allow_from: [...users, eve, fay].map((u) => u.id),
            poll_timeout: 1,
            stream_edit_interval: 50,
          },
          ...(recovery ? { recovery } : {}),
        },
        security: { rate_limit: { per_sender: { limit: 1000, window: '1m' } } },
        ...(tools ? { tools } : {}),
      }),
    );

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    llm = new FakeOpenAiServer();
    await llm.start();
    db = await createTestDatabase();
    home = mkdtempSync(join(tmpdir(), 'nestclaw-crash-'));
    writeConfig();
    env = {
      PATH: process.env.PATH,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: 'crash-test-token-0123456789',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
  }, 150_000);

  // A test that failed half-way must not leave its gateway polling the same bot as the next one.
  beforeEach(async () => {
    await running?.kill9();
    running = undefined;
  });

  afterAll(async () => {
    await running?.kill9();
    await sql?.end();
    await tg?.stop();
    await llm?.stop();
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('asks the model again for each of three messages whose request was in flight at kill -9 (no tool ran): answers, never a notice', async () => {
    const before = llm.requests.length;
    const first = await spawnGateway(env, BOOT_MS);
    running = first;
    // The model never answers during the first life: all three runs are in flight when it dies.
    llm.enqueue({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    users.slice(0, 3).forEach((u, i) => tg.dm(u, `question ${i + 1}`));
    await tg.waitFor(() => llm.requests.length >= before + 3, 15_000, 'three runs in flight');
    // Stored before acknowledged: Telegram has been told to forget all three updates.
    await tg.waitFor(() => tg.pending === 0, 5_000, 'updates confirmed');
    // Each turn shows its placeholder; let the ids be recorded (a kill before that leaves a stray "…").
    await tg.waitFor(() => users.slice(0, 3).every((u) => tg.sentTo(u.id).length === 1), 10_000, 'placeholders');
    await sleep(300);
    await first.kill9();

    running = await spawnGateway(env, BOOT_MS);
    for (const [i, u] of users.slice(0, 3).entries()) {
      await tg.waitFor(
        () => tg.sentTo(u.id).some((m) => telegramHtmlToText(m.current) === `echo: question ${i + 1}`),
        20_000,
        `the answer to ${u.first_name}`,
      );
    }
    // A new message after the restart is answered behind the recovered ones: nothing else is asked meanwhile.
    tg.dm(users[0], 'after the restart');
    await tg.waitFor(
      () => tg.sentTo(users[0].id).some((m) => telegramHtmlToText(m.current) === 'echo: after the restart'),
      20_000,
      'the next message answered',
    );
    for (const [i, u] of users.slice(0, 3).entries()) {
      // One answer each, edited into the placeholder of the first life: no notice, no second reply.
      const shown = tg.sentTo(u.id).map((m) => telegramHtmlToText(m.current));
      expect(shown.filter((t) => t !== '…' && t !== 'echo: after the restart')).toEqual([`echo: question ${i + 1}`]);
    }
    // Asked once in each life; each request carried the question once (the re-run did not double the user row).
    const asked = llm.requests.slice(before);
    expect(asked.map(lastUser).sort()).toEqual([
      'after the restart',
      'question 1',
      'question 1',
      'question 2',
      'question 2',
      'question 3',
      'question 3',
    ]);
    for (const r of asked) expect(r.body.messages.filter((m) => m.content === lastUser(r))).toHaveLength(1);
    await running.stop();
    running = undefined;
    // The transcript holds one user row and one answer per question; the first life's requests stay in the ledger, interrupted.
    const sql = await openDatabase();
    try {
      const rows = await sql.query<{ content: string; roles: string[]; calls: string[] }>(
        `SELECT u.content,
                (SELECT array_agg(m.role || ':' || m.status ORDER BY m.seq) FROM messages m WHERE m.turn_id = u.turn_id) AS roles,
                (SELECT array_agg(l.status ORDER BY l.id) FROM llm_calls l WHERE l.turn_id = u.turn_id) AS calls
           FROM messages u WHERE u.role = 'user' AND u.content LIKE 'question _' ORDER BY u.content`,
      );
      expect(rows.map((r) => [r.content, r.roles, r.calls])).toEqual(
        [1, 2, 3].map((n) => [`question ${n}`, ['user:ok', 'assistant:ok'], ['interrupted', 'ok']]),
      );
    } finally {
      await sql.end();
    }
  }, 360_000);

  it('answers an in-flight message with one notice under channels.recovery.interrupted_turns: notify, never asking again', async () => {
    const before = llm.requests.length;
    running = await spawnGateway(env, BOOT_MS);
    llm.enqueue({ kind: 'hang' });
    tg.dm(eve, 'ask me once');
    await tg.waitFor(() => llm.requests.length > before, 15_000, 'run in flight');
    await tg.waitFor(() => tg.sentTo(eve.id).length === 1, 10_000, 'placeholder');
    await sleep(300);
    await running.kill9();
    writeConfig({ interrupted_turns: 'notify' });
    try {
      running = await spawnGateway(env, BOOT_MS);
      await tg.waitFor(
        () => tg.sentTo(eve.id).some((m) => telegramHtmlToText(m.current) === interruptedNotice('ask me once')),
        20_000,
        'the notice',
      );
      expect(tg.sentTo(eve.id).map((m) => telegramHtmlToText(m.current))).toEqual([interruptedNotice('ask me once')]);
      expect(llm.requests.slice(before).map(lastUser)).toEqual(['ask me once']);
      await running.stop();
      running = undefined;
    } finally {
      writeConfig();
    }
  }, 360_000);

  it('answers with the notice, and never sends it again, when an http_request POST was in flight at kill -9', async () => {
    const sink = new OrderSink();
    await sink.start();
    const before = llm.requests.length;
    // No approval needed, loopback allowed: the POST leaves as soon as the model asks for it.
    writeConfig(undefined, { approval: { required: [] }, http: { allow_hosts: ['127.0.0.1'] } });
    // The fake model asks for the call whenever it reads this message: a re-run would POST again.
    const text = `order [tool:http_request {"method":"POST","url":"${sink.url}/orders","body":"one pizza"}]`;
    try {
      running = await spawnGateway(env, BOOT_MS);
      tg.dm(fay, text);
      await tg.waitFor(() => sink.received.length === 1, 20_000, 'the POST in flight');
      await running.kill9();
      running = await spawnGateway(env, BOOT_MS);
      await tg.waitFor(
        () => tg.sentTo(fay.id).some((m) => telegramHtmlToText(m.current) === interruptedNotice(text)),
        20_000,
        'the notice',
      );
      expect(sink.received).toEqual([{ method: 'POST', body: 'one pizza' }]);
      expect(llm.requests.slice(before).map(lastUser)).toEqual([text]);
      expect(
        tg
          .sentTo(fay.id)
          .map((m) => telegramHtmlToText(m.current))
          .filter((t) => t !== '…'),
      ).toEqual([interruptedNotice(text)]);
      await running.stop();
      running = undefined;
    } finally {
      writeConfig();
      await sink.stop();
    }
  }, 360_000);

  it('leaves a stray placeholder, never a second reply, when killed after Telegram accepted a send it never confirmed', async () => {
    const dan = users[3];
    running = await spawnGateway(env, BOOT_MS);
    // The turn's first send (its placeholder) reaches Telegram, but the answer with its id never comes back.
    tg.stallNext('sendMessage');
    tg.dm(dan, 'the send that never returned');
    await tg.waitFor(() => tg.sentTo(dan.id).length === 1, 15_000, 'placeholder created on Telegram');
    // The answer is stored (the kill must not cut the model's request: that turn would get a notice instead).
    await tg.waitFor(() => llm.requests.some((r) => lastUser(r) === 'the send that never returned'), 15_000, 'model asked');
    await sleep(1000);
    await running.kill9();
    running = await spawnGateway(env, BOOT_MS);
    await tg.waitFor(
      () => tg.sentTo(dan.id).some((m) => telegramHtmlToText(m.current) === 'echo: the send that never returned'),
      20_000,
      'reply after the restart',
    );
    await sleep(500);
    expect(tg.sentTo(dan.id).map((m) => telegramHtmlToText(m.current))).toEqual(['…', 'echo: the send that never returned']);
    await running.stop();
    running = undefined;
    const sql = await openDatabase();
    try {
      const rows = await sql.query<{ status: string }>(
        `SELECT status FROM outbound_messages WHERE chat_id = '${dan.id}' AND kind = 'reply' ORDER BY id`,
      );
      expect(rows.map((r) => r.status)).toEqual(['orphaned', 'sent']);
    } finally {
      await sql.end();
    }
  }, 360_000);

  chaos(
    'loses nothing, doubles nothing and bounces nothing across 30 kill -9 under a steady load with 40 ms Bot API latency',
    async () => {
      const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
      const random = prng(seed);
      const KILLS = 30;
      const MESSAGES = 120;
      tg.latencyMs = 40;
      llm.tokenDelayMs = 15;
      const firstMessage = tg.sent.length;
      const startedAt = Date.now();
      const requestsBefore = llm.requests.length;

      // Steady load: one message every 150 ms, round robin over the users, independent of the gateway's lives.
      const texts: { user: FakeUser; text: string }[] = [];
      const load = (async () => {
        for (let i = 0; i < MESSAGES; i++) {
          const user = users[i % users.length];
          const text = `m${String(i).padStart(3, '0')} from ${user.first_name}`;
          texts.push({ user, text });
          tg.dm(user, text);
          await sleep(150);
        }
      })();

      const started = Date.now();
      const boots: number[] = [];
      for (let kill = 0; kill < KILLS; kill++) {
        const t0 = Date.now();
        running = await spawnGateway(env, BOOT_MS);
        boots.push(Date.now() - t0);
        await sleep(100 + random() * 700);
        await running.kill9();
        running = undefined;
      }
      await load;
      running = await spawnGateway(env, BOOT_MS);
      const final = (m: SentMessage) => telegramHtmlToText(m.current);
      const isReply = (u: FakeUser, text: string) => (m: SentMessage) => m.chat_id === String(u.id) && final(m) === `echo: ${text}`;
      const isNotice = (u: FakeUser, text: string) => (m: SentMessage) =>
        m.chat_id === String(u.id) && final(m) === interruptedNotice(text);
      // Complete answers to a message: the model's reply, or the notice that its answer was lost to a kill
      // (counted so that a notice is a lost-and-bounced message, not a missing one: no tool runs here, so there must be none).
      const answersTo = (sent: SentMessage[], u: FakeUser, text: string) => sent.filter((m) => isReply(u, text)(m) || isNotice(u, text)(m));
      await tg.waitFor(
        () => texts.every(({ user, text }) => answersTo(tg.sent.slice(firstMessage), user, text).length > 0),
        60_000,
        'every message answered after the last restart',
      );
      await sleep(500); // let the last edits and records land
      const usage = (await (
        await fetch(`${running.url}/v1/usage?groupBy=model`, { headers: { authorization: `Bearer ${env.NESTCLAW_TOKEN}` } })
      ).json()) as { totals: { calls: number; interruptedCalls: number; inFlightCalls: number } };
      await running.stop();
      running = undefined;
      sql = await openDatabase();
      const sent = tg.sent.slice(firstMessage);

      // Delivery: exactly one complete answer (reply or notice) per message; anything else is a stray placeholder.
      const lost = texts.filter(({ user, text }) => answersTo(sent, user, text).length === 0);
      const doubled = texts.filter(({ user, text }) => answersTo(sent, user, text).length > 1);
      const notices = sent.filter((m) => texts.some(({ user, text }) => isNotice(user, text)(m)));
      const complete = new Set(texts.flatMap(({ user, text }) => [`${user.id}:echo: ${text}`, `${user.id}:${interruptedNotice(text)}`]));
      const strays = sent.filter((m) => !complete.has(`${m.chat_id}:${final(m)}`));
      const orphanRows = await sql.query<{ n: string }>(
        `SELECT count(*) AS n FROM outbound_messages WHERE status = 'orphaned' AND created_at >= to_timestamp(${startedAt / 1000})`,
      );
      const orphans = Number(orphanRows[0].n);

      // The model: a message is asked again only when a kill cut its turn short (counted at the fake by its text),
      // never after its answer was stored, and never with its user message twice in one request.
      const requests = llm.requests.slice(requestsBefore);
      const turns = await sql.query<{
        content: string;
        users: string;
        answers: string;
        notices: string;
        interrupted: string;
        answered_at: Date | string | null;
      }>(
        `SELECT u.content, count(*) OVER (PARTITION BY u.content) AS users,
              (SELECT count(*) FROM llm_calls l WHERE l.turn_id = u.turn_id AND l.status = 'interrupted') AS interrupted,
              (SELECT count(*) FROM messages a WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status = 'ok') AS answers,
              (SELECT count(*) FROM messages a WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status = 'notice') AS notices,
              (SELECT max(a.created_at) FROM messages a
                WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status IN ('ok', 'notice')) AS answered_at
         FROM messages u WHERE u.role = 'user' AND u.content LIKE 'm% from %'`,
      );
      const byText = new Map(turns.map((t) => [t.content, t]));
      const askedAfterAnswer = requests.filter((r) => {
        const t = byText.get(lastUser(r));
        return !!t?.answered_at && r.at > new Date(t.answered_at).getTime();
      });
      const repeatedTurns = requests.filter((r) => {
        const asked = r.body.messages.filter((m) => m.role === 'user').map((m) => m.content);
        return new Set(asked).size !== asked.length;
      });
      const perMessage = new Map<string, number>();
      for (const r of requests) perMessage.set(lastUser(r), (perMessage.get(lastUser(r)) ?? 0) + 1);
      const reasked = [...perMessage.entries()].filter(([, n]) => n > 1).map(([text]) => text);
      // Each extra ask follows an attempt that a kill cut short, and that attempt stays in the ledger as interrupted.
      const reaskedWithoutLedger = [...perMessage.entries()].filter(([text, n]) => Number(byText.get(text)?.interrupted ?? 0) < n - 1);

      // The ledger: every upstream request has its own row (matched by X-Client-Request-Id), and every row
      // its request but for the window checked below: the row commits in the same synchronous step as the
      // request is written (sendGated). Rows of requests in flight at a kill are `interrupted`.
      const calls = await sql.query<{ id: string; status: string; created_at: Date | string }>(
        `SELECT id::text, status, created_at FROM llm_calls WHERE turn_id IN (SELECT turn_id FROM messages WHERE content LIKE 'm% from %')`,
      );
      const ids = requests.map((r) => CALL_ID.exec(String(r.headers['x-client-request-id']))?.[1]);
      const rowIds = new Set(calls.map((c) => c.id));
      const unmatched = calls.filter((c) => !ids.includes(c.id));
      const interruptedRows = calls.filter((c) => c.status === 'interrupted').length;
      // From the row's transaction start (created_at is now(), taken at BEGIN) to the request reaching the
      // fake: the INSERT's round trip, the commit-and-send step and the fake's own read. The row commits in
      // the same tick as the request is written (sendGated), so this is no longer the window a kill falls in.
      const rowAt = new Map(calls.map((c) => [c.id, new Date(c.created_at).getTime()]));
      const windows = requests
        .map((r, i) => r.at - (rowAt.get(ids[i] ?? '') ?? NaN))
        .filter((ms) => Number.isFinite(ms))
        .sort((a, b) => a - b);
      const open = await sql.query<{ n: string }>(`SELECT count(*) AS n FROM inbound_messages WHERE status = 'received'`);
      const allInterrupted = await sql.query<{ n: string }>(`SELECT count(*) AS n FROM llm_calls WHERE status = 'interrupted'`);

      const summary = {
        seed,
        kills: KILLS,
        messages: MESSAGES,
        lost: lost.length,
        doubled: doubled.length,
        reasked: reasked.length,
        asks: requests.length,
        noticesDelivered: notices.length,
        orphanPlaceholders: orphans,
        strayPlaceholders: strays.length,
        llmCallsRows: calls.length,
        upstreamRequests: requests.length,
        rowsWithoutRequest: unmatched.length,
        interruptedRows,
        rowToRequestMs: { p50: windows[windows.length >> 1], p99: windows[Math.floor(windows.length * 0.99)], max: windows.at(-1) },
        durationS: Math.round((Date.now() - started) / 1000),
        medianBootMs: boots.sort((a, b) => a - b)[boots.length >> 1],
      };
      console.log(`crash run: ${JSON.stringify(summary)}`);

      expect(lost.map((t) => t.text)).toEqual([]);
      expect(doubled.map((t) => t.text)).toEqual([]);
      // No tool runs here, so a message cut short is asked again, never bounced with a notice.
      expect(notices.map(final)).toEqual([]);
      expect(reaskedWithoutLedger).toEqual([]);
      // A stray is only ever the placeholder of a send whose id a kill kept us from recording, and each is counted.
      expect(strays.map(final).filter((t) => t !== '…')).toEqual([]);
      expect(strays.length).toBeLessThanOrEqual(orphans);
      expect(askedAfterAnswer.map(lastUser)).toEqual([]);
      expect(repeatedTurns).toHaveLength(0);
      // Transcripts: one user turn and one answer per message, however often it was asked.
      for (const { text } of texts) {
        const t = byText.get(text);
        expect({ text, users: Number(t?.users), answers: Number(t?.answers), notices: Number(t?.notices) }).toEqual({
          text,
          users: 1,
          answers: 1,
          notices: 0,
        });
      }
      expect(ids.every((id) => id !== undefined && rowIds.has(id))).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      // Every upstream request has its row (never under-billed). A row without a request needs the kill
      // to land between the COMMIT write and the uncork that sends the request (two adjacent syscalls,
      // p50 37 µs): 0 in 10 of 11 runs, 1 in a run on a machine running two suites at once. Such a row
      // can only be `interrupted`. The insert-before-send code this replaced left 3–16 per run.
      expect(unmatched.filter((c) => c.status !== 'interrupted')).toEqual([]);
      expect(unmatched.length).toBeLessThanOrEqual(1);
      expect(calls.length - unmatched.length).toBe(requests.length);
      expect(calls.filter((c) => c.status === 'started')).toHaveLength(0);
      expect(usage.totals.interruptedCalls).toBe(Number(allInterrupted[0].n));
      expect(Number(open[0].n)).toBe(0);
    },
    3_100_000,
  );

  /** The run's database, read after the gateway stopped: the test server's, or the embedded one under $NESTCLAW_HOME. */
  async function openDatabase(): Promise<Sql> {
    if (db.url) {
      const c = new Client({ connectionString: db.url });
      await c.connect();
      return { query: async (q) => (await c.query(q)).rows, end: () => c.end() };
    }
    // Whichever engine the gateway's home holds (native PostgreSQL or PGlite), started again on its data.
    const embedded = await startEmbeddedPostgres(home, () => undefined);
    const c = new Client({ connectionString: embedded.url });
    await c.connect();
    return {
      query: async (q) => (await c.query(q)).rows,
      end: async () => {
        await c.end();
        await embedded.stop();
      },
    };
  }
});

interface Sql {
  query<T = Record<string, unknown>>(q: string): Promise<T[]>;
  end(): Promise<void>;
}
