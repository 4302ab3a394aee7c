import { Client } from 'pg';
import { startEmbeddedPostgres } from '@nestclaw/db';
import type { RecordedRequest } from '../fixtures/fake-openai.server';
import { eventually } from './eventually';
import { GatewayProcess, spawnGateway } from './gateway-process';
import { sleep } from './ha-load';
import { inCi, reportSkip } from './host-tools';
import { realPostgresAvailable, TestDatabase } from './test-database';

/**
 * The chaos run of a channel (issue 27's acceptance for Feishu and Slack): one gateway, killed with
 * SIGKILL to its whole process group at random moments while a fake platform streams messages in,
 * restarted each time; afterwards every message has exactly one answer and the model was asked again
 * only what crash recovery promises (docs/architecture.md "Crash recovery": a turn whose model call
 * a kill cut short runs again; one whose answer is stored is never asked again).
 */
export const CHAOS_KILLS = Number(process.env.CRASH_KILLS ?? 30);

/** A boot may take long on a loaded machine (2 cores shared with builds): timeouts count lives, not seconds. */
export const CHAOS_BOOT_MS = Number(process.env.CRASH_BOOT_MS ?? 90_000);

const lastUser = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/**
 * The 30-kill run takes minutes: it runs once per CI run, on the PostgreSQL-server pass (the first),
 * as ha-chaos does. Elsewhere it is skipped visibly (printed now and listed at the end of the run) and
 * `short` runs instead, if given; under CI=true a first pass without a server fails instead of skipping.
 */
export function chaosTests(opts: {
  title: string;
  run: (kills: number) => Promise<void>;
  timeoutMs: number;
  short?: { title: string; kills: number; timeoutMs: number };
}): void {
  if (realPostgresAvailable()) {
    it(opts.title, () => opts.run(CHAOS_KILLS), opts.timeoutMs);
    return;
  }
  // CI's first run has a server; its second run (no server, PGPORT pointed at a closed port) is the embedded pass.
  if (inCi() && process.env.NESTCLAW_TEST_DB !== 'embedded' && !process.env.PGPORT) {
    it(`has a PostgreSQL server for "${opts.title}": CI=true runs every test`, () => expect(realPostgresAvailable()).toBe(true));
    return;
  }
  const why = `a PostgreSQL server (the ${CHAOS_KILLS}-kill run is made once per CI run, on the server pass${opts.short ? `; ${opts.short.kills} kills here` : ''})`;
  reportSkip(opts.title, [why]);
  it.skip(`${opts.title} [skipped: needs ${why}]`, () => undefined);
  const short = opts.short;
  if (short) it(short.title, () => opts.run(short.kills), short.timeoutMs);
}

/** The gateway's lives in a chaos run: each in its own process group, so one SIGKILL ends all it runs. */
export class GatewayLives {
  current: GatewayProcess | undefined;
  /** Milliseconds from spawn to ready, per life. */
  readonly boots: number[] = [];
  /** What the last life printed (warnings and errors: its log level is warn), for a failure's message. */
  lastOutput = '';

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /**
   * `kills` lives, each killed (SIGKILL to its process group) at a random moment in the first 800 ms after
   * the platform saw its connection (`connections` counts them): while it takes in what waited for it,
   * answers, and records. A life that never connects fails the run.
   */
  async killRepeatedly(kills: number, random: () => number, connections: () => number): Promise<void> {
    for (let kill = 0; kill < kills; kill++) {
      const before = connections();
      await this.start();
      await eventually(`life ${kill + 1}'s platform connection`, () => connections() > before, 30_000);
      await sleep(random() * 800);
      await this.current!.killGroup9();
      this.current = undefined;
    }
  }

  async start(): Promise<GatewayProcess> {
    const t0 = Date.now();
    this.current = await spawnGateway(this.env, CHAOS_BOOT_MS, { ownProcessGroup: true });
    this.boots.push(Date.now() - t0);
    return this.current;
  }

  async stop(): Promise<void> {
    await this.current?.stop();
    this.lastOutput = this.current?.output() ?? this.lastOutput;
    this.current = undefined;
  }

  /** After a failed test: the whole group, as in the run. */
  async dispose(): Promise<void> {
    await this.current?.killGroup9().catch(() => this.current?.kill9());
    this.current = undefined;
  }

  get medianBootMs(): number | undefined {
    return [...this.boots].sort((a, b) => a - b)[this.boots.length >> 1];
  }
}

export interface RunDatabase {
  query<T = Record<string, unknown>>(q: string, params?: unknown[]): Promise<T[]>;
  end(): Promise<void>;
}

/** The run's database, read after the gateway stopped: the test server's, or the embedded one under `home`. */
export async function openRunDatabase(db: TestDatabase, home: string): Promise<RunDatabase> {
  if (db.url) {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    return { query: async (q, params) => (await c.query(q, params)).rows, end: () => c.end() };
  }
  const embedded = await startEmbeddedPostgres(home, () => undefined);
  const c = new Client({ connectionString: embedded.url });
  c.on('error', () => undefined); // the embedded server's shutdown in end() may outrun the client's own end
  await c.connect();
  return {
    query: async (q, params) => (await c.query(q, params)).rows,
    end: async () => {
      await c.end();
      await embedded.stop();
    },
  };
}

/** What the model was asked for the run's messages, against what the database says of their turns. */
export interface ModelAsks {
  /** Requests whose newest user message is one of the run's. */
  asks: number;
  /** Messages asked more than once: each extra ask must follow an attempt a kill cut short. */
  rerun: number;
  /** Extra asks without an interrupted attempt in the ledger to account for them (must be none). */
  reaskedBeyondPromise: string[];
  /** Asks after the message's answer was stored (must be none: a stored answer is delivered, not asked for again). */
  askedAfterAnswer: string[];
  /** Requests that carried one user message twice (a re-run that doubled the user row; must be none). */
  repeatedInOneRequest: string[];
  /** Messages whose transcript is not one user row, one answer and no notice. */
  transcriptsNotOnce: string[];
  /** Inbound rows still `received` (never answered). */
  openInbound: number;
  /** Outbound rows a kill left without their platform id (each may be a stray placeholder). */
  orphaned: number;
}

export async function modelAsks(sql: RunDatabase, texts: string[], requests: RecordedRequest[]): Promise<ModelAsks> {
  const ours = new Set(texts);
  const asked = requests.filter((r) => ours.has(lastUser(r)));
  const turns = await sql.query<{
    content: string;
    users: number;
    answers: number;
    notices: number;
    interrupted: number;
    answered_at: Date | null;
  }>(
    `SELECT u.content, count(*) OVER (PARTITION BY u.content)::int AS users,
            (SELECT count(*) FROM llm_calls l WHERE l.turn_id = u.turn_id AND l.status = 'interrupted')::int AS interrupted,
            (SELECT count(*) FROM messages a WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status = 'ok')::int AS answers,
            (SELECT count(*) FROM messages a WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status = 'notice')::int AS notices,
            (SELECT max(a.created_at) FROM messages a
              WHERE a.turn_id = u.turn_id AND a.role = 'assistant' AND a.status IN ('ok', 'notice')) AS answered_at
       FROM messages u WHERE u.role = 'user' AND u.content = ANY($1)`,
    [texts],
  );
  const byText = new Map(turns.map((t) => [t.content, t]));
  const perMessage = new Map<string, number>();
  for (const r of asked) perMessage.set(lastUser(r), (perMessage.get(lastUser(r)) ?? 0) + 1);
  const [open] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_messages WHERE status = 'received'`);
  const [orphaned] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbound_messages WHERE status = 'orphaned'`);
  return {
    asks: asked.length,
    rerun: [...perMessage.values()].filter((n) => n > 1).length,
    reaskedBeyondPromise: [...perMessage.entries()]
      .filter(([text, n]) => (byText.get(text)?.interrupted ?? 0) < n - 1)
      .map(([text, n]) => `${text} ×${n}`),
    askedAfterAnswer: asked
      .filter((r) => {
        const at = byText.get(lastUser(r))?.answered_at;
        return !!at && r.at > new Date(at).getTime();
      })
      .map(lastUser),
    repeatedInOneRequest: asked
      .filter((r) => {
        const users = r.body.messages.filter((m) => m.role === 'user').map((m) => m.content);
        return new Set(users).size !== users.length;
      })
      .map(lastUser),
    transcriptsNotOnce: texts
      .map((text) => ({ text, t: byText.get(text) }))
      .filter(({ t }) => t?.users !== 1 || t.answers !== 1 || t.notices !== 0)
      .map(({ text, t }) => `${text}: ${t ? `${t.users} user rows, ${t.answers} answers, ${t.notices} notices` : 'not stored'}`),
    openInbound: open.n,
    orphaned: orphaned.n,
  };
}

/** Where each of `texts` got to, for a failure's message: its inbound row, its turn's rows and its sends. */
export async function whereTheyStopped(sql: RunDatabase, texts: string[]): Promise<string[]> {
  if (texts.length === 0) return [];
  const rows = await sql.query<{ text: string; inbound: string | null; turn: string | null; sends: string | null }>(
    `SELECT t.text,
            (SELECT string_agg(i.id || ':' || i.status || ' at ' || i.received_at, ', ') FROM inbound_messages i WHERE i.payload->>'text' = t.text) AS inbound,
            (SELECT string_agg(m.role || ':' || m.status, ', ' ORDER BY m.seq) FROM messages m
              WHERE m.turn_id IN (SELECT u.turn_id FROM messages u WHERE u.role = 'user' AND u.content = t.text)) AS turn,
            (SELECT string_agg(o.kind || ':' || o.status, ', ' ORDER BY o.id) FROM outbound_messages o
              WHERE o.inbound_id IN (SELECT i.id FROM inbound_messages i WHERE i.payload->>'text' = t.text)) AS sends
       FROM unnest($1::text[]) AS t(text)`,
    [texts],
  );
  return rows.map((r) => `${r.text}: inbound [${r.inbound ?? 'none'}], turn [${r.turn ?? 'none'}], sends [${r.sends ?? 'none'}]`);
}
