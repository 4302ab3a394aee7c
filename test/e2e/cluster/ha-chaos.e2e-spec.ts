import { Client } from 'pg';
import { interruptedNotice } from '@nestclaw/agent';
import { telegramHtmlToText } from '@nestclaw/channel';
import { DiscordUser, FakeDiscordServer } from '../../fixtures/fake-discord.server';
import { FakeOpenAiServer, RecordedRequest } from '../../fixtures/fake-openai.server';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';
import { HaCluster, startHaCluster } from '../../support/ha-cluster';
import { ChatLoad, percentile, prng, sleep } from '../../support/ha-load';
import { describeWithHostTools, HostToolPaths, inCi, reportSkip } from '../../support/host-tools';
import { createScratchDatabase, ScratchDatabase } from '../../support/scratch-database';
import { realPostgresAvailable } from '../../support/test-database';

const TITLE = 'chaos: kill -9 of replicas behind HAProxy under Telegram + Discord + HTTP load';
const KILLS = Number(process.env.HA_CHAOS_KILLS ?? 30);
/** Every other kill targets a channel lease holder (Telegram's and Discord's in turn); random kills may hit one too. */
const MIN_OWNER_KILLS = Math.min(10, Math.ceil(KILLS / 2));
const FAILOVER_MAX_MS = 10_000;
const HTTP_CLIENTS = 3;
const LOAD_INTERVAL_MS = 300;

type Lease = 'telegram' | 'discord';
const lastUser = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/**
 * Issue 24's chaos acceptance: three built gateways on one scratch PostgreSQL behind a real HAProxy,
 * one fake Telegram Bot API, one fake Discord and one fake model shared by all. Under a steady load
 * (Telegram and Discord DMs from several senders, HTTP chats from several clients through the
 * balancer), replicas die by SIGKILL 30 times, the channel lease holder at least 10 of them, each
 * restarted before the next kill. Afterwards every message is answered exactly once, no turn is
 * asked of the model twice beyond what crash recovery promises (a turn whose model call a kill cut
 * short runs again: docs/architecture.md "Crash recovery"), every HTTP answer is stored once, and
 * each channel failover took ≤ 10 s. Runs once, on the PostgreSQL-server pass (3–3.5 minutes here).
 */
function chaos(tools: HostToolPaths) {
  let db: ScratchDatabase;
  let tg: FakeTelegramServer;
  let dc: FakeDiscordServer;
  let llm: FakeOpenAiServer;
  let ha: HaCluster;
  let sql: Client;
  const tgUsers: FakeUser[] = Array.from({ length: 5 }, (_, i) => ({ id: 8101 + i, first_name: `T${i}` }));
  const dcUsers: DiscordUser[] = Array.from({ length: 5 }, (_, i) => ({
    id: String(720_000_000_000_000_001n + BigInt(i)),
    username: `d${i}`,
  }));

  beforeAll(async () => {
    db = await createScratchDatabase(process.env.NESTCLAW_TEST_PG_ADMIN_URL!, 'nestclaw_ha_chaos');
    tg = new FakeTelegramServer();
    dc = new FakeDiscordServer();
    llm = new FakeOpenAiServer();
    await Promise.all([tg.start(), dc.start(), llm.start()]);
    // Real platforms answer in tens of ms and a model streams: kills land mid-send and mid-stream.
    tg.latencyMs = 20;
    llm.tokenDelayMs = 10;
    const telegram = {
      enabled: true,
      token: tg.token,
      allow_from: tgUsers.map((u) => u.id),
      poll_timeout: 1,
      stream_edit_interval: 50,
    };
    const discord = { enabled: true, token: dc.token, api_root: dc.url, allow_from: dcUsers.map((u) => u.id), stream_edit_interval: 50 };
    ha = await startHaCluster({
      databaseUrl: db.url,
      llmUrl: llm.url,
      haproxy: tools.haproxy!,
      config: {
        security: { rate_limit: { per_sender: { limit: 1000, window: '1m' }, per_token: { limit: 10_000, window: '1m' } } },
        database: { pool_size: 5 },
      },
      // Each process polls through its own prefix (r<i>-<life>): a poll names the process that made it.
      configOf: (i, life) => ({ channels: { telegram: { ...telegram, api_root: `${tg.url}/r${i}-${life}/` }, discord } }),
    });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await ha?.stop();
    await Promise.all([tg?.stop(), dc?.stop(), llm?.stop()]);
    await db?.drop();
  });

  /** The index of the replica holding `lease` now (waits while it is free, as during a failover). */
  const holderOf = async (lease: Lease): Promise<number> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await sql.query<{ pid: number }>(
        `SELECT r.pid FROM leases l JOIN replicas r ON r.id = l.holder
          WHERE l.name = $1 AND l.expires_at > now() AND nestclaw_replica_alive(l.holder)`,
        [`channel:${lease}`],
      );
      const i = ha.replicas.findIndex((r) => r !== undefined && r.child.pid === rows[0]?.pid);
      if (i >= 0) return i;
      if (Date.now() > deadline) throw new Error(`no live holder of channel:${lease}`);
      await sleep(100);
    }
  };

  /** Waits for the channel to be served again after its owner died at `killedAt`; returns the failover time. */
  const failover = async (lease: Lease, killedAt: number, deadVia: string): Promise<number> => {
    if (lease === 'telegram') {
      const poll = await tg.waitFor(
        () => tg.callsOf('getUpdates').find((c) => c.at >= killedAt && c.via !== deadVia),
        3 * FAILOVER_MAX_MS,
        'another process polling Telegram',
      );
      return poll.at - killedAt;
    }
    const connectedAt = await dc.waitFor(() => dc.connectedAt.find((t) => t >= killedAt), 3 * FAILOVER_MAX_MS, 'a new Discord connection');
    await dc.waitFor(() => dc.connected, 5_000, 'the new Discord connection ready');
    return connectedAt - killedAt;
  };

  it(`loses, doubles and re-asks nothing across ${KILLS} kill -9 (${MIN_OWNER_KILLS}+ of the channel owner), failing over within 10 s`, async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
    const random = prng(seed);
    const load = new ChatLoad(tg, dc, ha, tgUsers, dcUsers);
    // Every chat seen once before the kills: Discord catches up offline messages of chats it knows.
    await load.warmUp(HTTP_CLIENTS);
    const startedAt = Date.now();
    load.start(LOAD_INTERVAL_MS);

    const failovers: { lease: Lease; ms: number }[] = [];
    let ownerKills = 0;
    for (let k = 0; k < KILLS; k++) {
      const targeted: Lease | undefined = k % 2 === 0 ? (k % 4 === 0 ? 'telegram' : 'discord') : undefined;
      const victim = targeted ? await holderOf(targeted) : Math.floor(random() * ha.replicas.length);
      const held = (
        await Promise.all((['telegram', 'discord'] as const).map(async (l) => ((await holderOf(l)) === victim ? l : undefined)))
      ).filter((l): l is Lease => l !== undefined);
      if (held.length) ownerKills++;
      const deadVia = `r${victim}-${ha.life(victim)}`;
      const killedAt = Date.now();
      await ha.kill9(victim);
      const restarted = ha.restart(victim);
      for (const lease of held) failovers.push({ lease, ms: await failover(lease, killedAt, deadVia) });
      await restarted;
      await ha.balancedOver(ha.replicas.length);
      await sleep(200 + random() * 1300);
    }
    const chaosS = Math.round((Date.now() - startedAt) / 1000);
    await load.stop();
    // A message still unanswered then is lost: the counts below name it, after the figures are printed.
    await load.drained(120_000).catch(() => undefined);
    await sleep(1000); // the last edits land

    // Channels: exactly one complete answer (the model's, or a notice) per message, as the platform shows it.
    const tgFinal = (u: FakeUser) => tg.sentTo(u.id).map((m) => telegramHtmlToText(m.current));
    const dcFinal = (u: DiscordUser) => dc.postedTo(dc.dmChannelOf(u)).map((m) => m.current);
    const count = (shown: string[], text: string) => ({
      text,
      n: shown.filter((s) => s === `echo: ${text}` || s === interruptedNotice(text)).length,
      notices: shown.filter((s) => s === interruptedNotice(text)).length,
    });
    const tgCounts = load.telegram.map(({ user, text }) => count(tgFinal(user), text));
    const dcCounts = load.discord.map(({ user, text }) => count(dcFinal(user), text));
    const channelCounts = [...tgCounts, ...dcCounts];
    const lost = channelCounts.filter((c) => c.n === 0).map((c) => c.text);
    const doubled = channelCounts.filter((c) => c.n > 1).map((c) => c.text);
    const complete = new Set(channelCounts.flatMap(({ text }) => [`echo: ${text}`, interruptedNotice(text)]));
    const notices = channelCounts.filter((c) => c.notices > 0).map((c) => c.text);
    const strays = [...tgUsers.flatMap(tgFinal), ...dcUsers.flatMap(dcFinal)].filter((s) => !complete.has(s));

    // The model: a text asked again only after an attempt a kill cut short (its llm_calls row is not `ok`).
    const perText = new Map<string, number>();
    // The load's texts only: a compaction's summarising request (its user message a "#12 user: …" transcript)
    // is asked again when a kill lands between its answer and the summary's commit; that is not a text re-asked.
    const summarising = (r: RecordedRequest) => r.body.messages.length === 2 && /^#\d+ \w+: /.test(lastUser(r));
    for (const r of llm.requests.filter((q) => !summarising(q))) perText.set(lastUser(r), (perText.get(lastUser(r)) ?? 0) + 1);
    const { rows: cut } = await sql.query<{ content: string; n: number }>(
      `SELECT u.content, count(l.*)::int AS n FROM messages u JOIN llm_calls l ON l.turn_id = u.turn_id
          WHERE u.role = 'user' AND l.status <> 'ok' GROUP BY u.content`,
    );
    const cutShort = new Map(cut.map((c) => [c.content, c.n]));
    const reasked = [...perText].filter(([, n]) => n > 1);
    // Never asked again once its answer was stored: only a turn cut short runs again.
    const { rows: answeredAt } = await sql.query<{ content: string; at: Date }>(
      `SELECT u.content, min(a.created_at) AS at FROM messages u JOIN messages a ON a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status = 'ok'
        WHERE u.role = 'user' GROUP BY u.content`,
    );
    // A turn that was answered was never cut short: its user row is `ok`. A replica starting up must not
    // mark the turns other, live replicas are running as interrupted (they then close as answered).
    const { rows: answeredButInterrupted } = await sql.query<{ content: string; status: string }>(
      `SELECT u.content, u.status FROM messages u
        WHERE u.role = 'user' AND u.status <> 'ok'
          AND EXISTS (SELECT 1 FROM messages a WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status = 'ok')`,
    );
    // The ledger closes every attempt: one a kill cut short is `interrupted` (by start-up recovery, or by whoever
    // takes the turn over), never left `started` (usage would count it in flight for ever).
    const { rows: leftStarted } = await sql.query<{ content: string; status: string; calls: string; answered: boolean }>(
      `SELECT u.content, u.status, (SELECT string_agg(c.status, ',' ORDER BY c.id) FROM llm_calls c WHERE c.turn_id = u.turn_id) AS calls,
              EXISTS (SELECT 1 FROM messages a WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status = 'ok') AS answered
         FROM messages u WHERE u.role = 'user' AND EXISTS (SELECT 1 FROM llm_calls l WHERE l.turn_id = u.turn_id AND l.status = 'started')`,
    );
    const answeredBy = new Map(answeredAt.map((r) => [r.content, new Date(r.at).getTime()]));
    const askedAfterAnswer = llm.requests.filter((r) => r.at > (answeredBy.get(lastUser(r)) ?? Infinity)).map(lastUser);
    const reaskedBeyondPromise = reasked.filter(([text, n]) => n - 1 > (cutShort.get(text) ?? 0)).map(([text, n]) => `${text} ×${n}`);
    // A request never carries a user message twice, but for a text an HTTP client sent again after its replica
    // died: the first attempt's user row stays in the transcript (interrupted), and the session's later turns send both.
    const resent = new Set(load.http.filter((h) => h.failures.length > 0).map((h) => h.message));
    const repeatedInOneRequest = llm.requests.filter((r) => {
      const asked = r.body.messages.filter((m) => m.role === 'user' && !resent.has(m.content ?? '')).map((m) => m.content);
      return new Set(asked).size !== asked.length;
    });
    const { rows: ledger } = await sql.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM llm_calls GROUP BY status`,
    );

    // HTTP: each request's answer stored exactly once in its session, whether the client received it or found it after a failure.
    // Per request (its text is unique): the answers stored in its turns, and its user rows (one per attempt that got in).
    const { rows: stored } = await sql.query<{ content: string; answers: number; users: number }>(
      `SELECT u.content, count(*)::int AS users,
              (SELECT count(*) FROM messages a WHERE a.turn_id = ANY(array_agg(u.turn_id)) AND a.role = 'assistant' AND a.status = 'ok')::int AS answers
         FROM messages u WHERE u.role = 'user' AND u.session_id = ANY($1) GROUP BY u.content`,
      [load.sessions.flat()],
    );
    const storedBy = new Map(stored.map((s) => [s.content, s]));
    const httpNotStoredOnce = load.http
      .filter((h) => storedBy.get(h.message)?.answers !== 1)
      .map((h) => `${h.message}: ${storedBy.get(h.message)?.answers ?? 0}`);
    const httpWrongReply = load.http.filter((h) => h.received !== undefined && h.received !== `echo: ${h.message}`);
    const { rows: orphaned } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbound_messages WHERE status = 'orphaned'`);
    const { rows: openInbound } = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM inbound_messages WHERE status = 'received'`,
    );

    const sorted = failovers.map((f) => f.ms).sort((a, b) => a - b);
    const summary = {
      seed,
      kills: KILLS,
      ownerKills,
      failovers: {
        count: sorted.length,
        p50: percentile(sorted, 0.5),
        max: sorted.at(-1),
        telegram: failovers.filter((f) => f.lease === 'telegram').length,
      },
      telegram: { messages: load.telegram.length, replies: tgCounts.reduce((n, c) => n + c.n, 0) },
      discord: { messages: load.discord.length, replies: dcCounts.reduce((n, c) => n + c.n, 0), sentOffline: load.discordOffline },
      http: {
        requests: load.http.length,
        received: load.http.filter((h) => h.received !== undefined).length,
        foundStoredAfterFailure: load.http.filter((h) => h.foundStored).length,
        failedAttempts: load.http.reduce((n, h) => n + h.failures.length, 0),
        failures: [...new Set(load.http.flatMap((h) => h.failures.map((f) => f.slice(0, 60))))],
        retriedTurns: stored.filter((s) => s.users > 1).length,
      },
      lost: lost.length,
      doubled: doubled.length,
      notices: notices.length,
      strays: strays.length,
      strayTexts: [...new Set(strays)],
      orphanedPlaceholders: orphaned[0].n,
      modelRequests: llm.requests.length,
      reasked: reasked.length,
      reaskedBeyondPromise: reaskedBeyondPromise.length,
      askedAfterAnswer: askedAfterAnswer.length,
      answeredButMarkedInterrupted: answeredButInterrupted.length,
      callsLeftStarted: leftStarted.map((r) => `${r.content} (${r.status}, answered ${r.answered}): calls ${r.calls}`),
      telegramConflicts: tg.conflicts.length,
      discordPeakConnections: dc.peakConnections,
      ledger: Object.fromEntries(ledger.map((l) => [l.status, l.n])),
      chaosS,
    };
    console.log(`[ha chaos] ${JSON.stringify(summary)}`);
    console.log(`[ha chaos] failover p50 ${summary.failovers.p50} ms, max ${summary.failovers.max} ms over ${sorted.length} owner deaths`);

    expect(ownerKills).toBeGreaterThanOrEqual(MIN_OWNER_KILLS);
    expect(lost).toEqual([]);
    expect(doubled).toEqual([]);
    // No tool runs here: a turn cut short runs again, never ends in a notice.
    expect(notices).toEqual([]);
    // A stray is a placeholder whose id a kill kept the sender from recording (each recorded as orphaned).
    expect(strays.filter((s) => s !== '…')).toEqual([]);
    expect(strays.length).toBeLessThanOrEqual(orphaned[0].n);
    expect(reaskedBeyondPromise).toEqual([]);
    expect(askedAfterAnswer).toEqual([]);
    expect(leftStarted.map((r) => `${r.content} (${r.status}, answered ${r.answered}): calls ${r.calls}`)).toEqual([]);
    expect(answeredButInterrupted.map((r) => `${r.content}: ${r.status}`)).toEqual([]);
    expect(repeatedInOneRequest.map(lastUser)).toEqual([]);
    expect(
      load.http.filter((h) => h.received === undefined && !h.foundStored).map((h) => `${h.message}: ${h.failures.join(' | ')}`),
    ).toEqual([]);
    expect(httpNotStoredOnce).toEqual([]);
    expect(httpWrongReply).toEqual([]);
    expect(openInbound[0].n).toBe(0);
    expect(sorted.length).toBeGreaterThanOrEqual(MIN_OWNER_KILLS);
    expect(sorted.filter((ms) => ms > FAILOVER_MAX_MS)).toEqual([]);
  }, 900_000);
}

// Replicas need a PostgreSQL server, so this runs on the server pass only: once per CI run.
if (realPostgresAvailable()) describeWithHostTools(['haproxy'], TITLE, chaos);
else if (inCi() && process.env.NESTCLAW_TEST_DB !== 'embedded' && !process.env.PGPORT) {
  // CI's first run has a server; its second run (no server, PGPORT pointed at a closed port) is the embedded path.
  describe(TITLE, () => it('has a PostgreSQL server: CI=true runs every test', () => expect(realPostgresAvailable()).toBe(true)));
} else {
  reportSkip(TITLE, ['a PostgreSQL server (several replicas need DATABASE_URL; the embedded database is single-process)']);
  describe.skip(`${TITLE} [skipped: needs a PostgreSQL server]`, () => chaos({}));
}
