/**
 * `npm run soak`: does the gateway give memory back after abuse?
 *
 * Same three processes as `npm run bench` (bench-support.ts): this one, the fake LLM and the
 * gateway from the webpack bundle with the heap cap `npm start` uses, on a fresh PostgreSQL
 * database. Then:
 *   1. RSS after a warm-up (50 turns, each malformed case 10 times: code compiled once is not growth)
 *      and a short settle ("before");
 *   2. 10,000 malformed inputs from 10 concurrent clients: bodies of 1–8 MB (with and without
 *      Content-Length), invalid JSON, wrong types, NUL characters, deep nesting, prototype keys,
 *      bad percent-encoding, unknown routes, and WebSocket abuse (1–8 MB frames, invalid UTF-8,
 *      binary and non-JSON frames). Every HTTP answer must be a 4xx; a 5xx fails the run;
 *   3. 10,000 normal chat turns (10 concurrent clients, a new session every 10 turns);
 *   4. RSS right after, then after an idle period ("after idle"). Target: after idle within 15 %
 *      of before.
 * Options: --malformed N, --turns N, --idle SECONDS (default 10000, 10000, 30).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import {
  GATEWAY_NODE_FLAGS,
  GatewayProcess,
  ROOT,
  SESSION_TURNS,
  TOKEN,
  cleanups,
  concurrent,
  createDatabase,
  gatewayTarget,
  memoryOf,
  now,
  round,
  runCleanups,
  sleep,
  startFakeLlm,
  startGatewayProcess,
} from './bench-support';

const { values: argv } = parseArgs({
  args: process.argv.slice(2),
  options: { malformed: { type: 'string' }, turns: { type: 'string' }, idle: { type: 'string' } },
  strict: true,
});
const MALFORMED = Number(argv.malformed ?? 10_000);
const TURNS = Number(argv.turns ?? 10_000);
const IDLE_MS = Number(argv.idle ?? 30) * 1000;
const CONCURRENCY = 10;
const TARGET_IDLE_GROWTH = 0.15;
const MB = 1024 * 1024;

const log = (line: string) => process.stdout.write(`[soak] ${line}\n`);

/** One raw HTTP request; the status, or "reset" when the server closed before answering. */
function send(
  base: URL,
  method: string,
  path: string,
  body: Buffer | undefined,
  headers: Record<string, string>,
  agent: Agent | false,
): Promise<number | 'reset'> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: number | 'reset') => {
      if (!settled) {
        settled = true;
        resolve(v);
      }
    };
    const req = httpRequest(
      { agent, host: base.hostname, port: base.port, method, path, headers: { authorization: `Bearer ${TOKEN}`, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(res.statusCode ?? 0));
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => done('reset'));
    if (body) req.end(body);
    else req.end();
  });
}

/** The i-th malformed input: HTTP most of the time, WebSocket abuse every tenth. */
function malformedCase(
  i: number,
): { kind: 'http'; run: (base: URL, agent: Agent) => Promise<number | 'reset'> } | { kind: 'ws'; run: (base: URL) => Promise<void> } {
  const json = { 'content-type': 'application/json' };
  const big = (n: number) => Buffer.alloc(n, 'x');
  const sizeMb = 1 + (i % 8); // 1..8 MB
  switch (i % 20) {
    case 0:
      // Huge body with Content-Length: refused before it is read.
      return {
        kind: 'http',
        run: (b) => send(b, 'POST', '/v1/chat', big(sizeMb * MB), { ...json, 'content-length': String(sizeMb * MB) }, false),
      };
    case 1:
      // Huge chunked body (no Content-Length): Fastify must count while it streams.
      return {
        kind: 'http',
        run: (b) =>
          send(
            b,
            'POST',
            '/v1/chat/completions',
            Buffer.concat([Buffer.from('{"model":"nestclaw","messages":[{"role":"user","content":"'), big(sizeMb * MB)]),
            { ...json, 'transfer-encoding': 'chunked' },
            false,
          ),
      };
    case 2:
      return { kind: 'ws', run: (b) => wsAbuse(b, 'oversize', sizeMb * MB) };
    case 3:
      return { kind: 'ws', run: (b) => wsAbuse(b, 'utf8', 0) };
    case 4:
      return { kind: 'ws', run: (b) => wsAbuse(b, 'garbage', 0) };
    case 5:
      return { kind: 'http', run: (b, a) => send(b, 'POST', '/v1/chat', Buffer.from('{"message": '), json, a) };
    case 6:
      return {
        kind: 'http',
        run: (b, a) => send(b, 'POST', '/v1/chat', Buffer.from(JSON.stringify({ message: `nul\u0000${i}` })), json, a),
      };
    case 7:
      return {
        kind: 'http',
        run: (b, a) => send(b, 'POST', '/v1/chat', Buffer.from(JSON.stringify({ message: 42, sessionId: [1], agentId: {} })), json, a),
      };
    case 8:
      return {
        kind: 'http',
        run: (b, a) => send(b, 'POST', '/v1/chat', Buffer.from(`${'['.repeat(50_000)}${']'.repeat(50_000)}`), json, a),
      };
    case 9:
      return {
        kind: 'http',
        run: (b, a) => send(b, 'POST', '/v1/chat', Buffer.from(JSON.stringify({ message: 'x', agentId: '__proto__' })), json, a),
      };
    case 10:
      return {
        kind: 'http',
        run: (b, a) =>
          send(
            b,
            'POST',
            '/v1/chat/completions',
            Buffer.from(JSON.stringify({ model: 'nestclaw/constructor', messages: [{ role: 'user', content: 'x' }] })),
            json,
            a,
          ),
      };
    case 11:
      return { kind: 'http', run: (b, a) => send(b, 'GET', '/v1/sessions/%E0%A4%A/messages', undefined, {}, a) };
    case 12:
      return { kind: 'http', run: (b, a) => send(b, 'GET', `/v1/sessions/${'a'.repeat(800)}/messages`, undefined, {}, a) };
    case 13:
      return { kind: 'http', run: (b, a) => send(b, 'GET', `/v1/audit?action=a%00b&limit=${'9'.repeat(400)}`, undefined, {}, a) };
    case 14:
      return { kind: 'http', run: (b, a) => send(b, 'GET', `/nowhere/${i}`, undefined, {}, a) };
    case 15:
      return { kind: 'http', run: (b, a) => send(b, 'POST', '/v1/chat', Buffer.from('<xml/>'), { 'content-type': 'application/xml' }, a) };
    case 16:
      return { kind: 'http', run: (b, a) => send(b, 'POST', `/v1/sessions/x%00${i}/checkpoints`, Buffer.from('{}'), json, a) };
    case 17:
      return {
        kind: 'http',
        run: (b, a) => send(b, 'POST', '/v1/chat', Buffer.from(JSON.stringify({ message: 'y'.repeat(300_000) })), json, a),
      };
    case 18:
      return {
        kind: 'http',
        run: (b, a) =>
          send(b, 'POST', '/v1/chat', Buffer.from('{"message":"p","__proto__":{"x":1},"constructor":{"prototype":{"x":1}}}'), json, a),
      };
    default:
      return { kind: 'http', run: (b, a) => send(b, 'GET', '/v1/sessions?limit=-1&before=yesterday', undefined, {}, a) };
  }
}

/** Opens a socket, sends one bad frame, waits for the answer or the close, closes. */
function wsAbuse(base: URL, what: 'oversize' | 'utf8' | 'garbage', bytes: number): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${base.host}/ws`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const finish = () => {
      ws.terminate();
      resolve();
    };
    const timer = setTimeout(finish, 10_000);
    ws.on('error', () => undefined);
    ws.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.on('message', () => {
      if (what === 'garbage') {
        clearTimeout(timer);
        ws.close();
      }
    });
    ws.on('open', () => {
      if (what === 'oversize') ws.send(Buffer.alloc(bytes, 'z'), { binary: false });
      else if (what === 'utf8') ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
      else ws.send(Buffer.from([1, 2, 3]), { binary: true });
    });
  });
}

async function main(): Promise<number> {
  const started = now();
  const llm = await startFakeLlm();
  const adminUrl = process.env.NESTCLAW_BENCH_PG_URL ?? process.env.NESTCLAW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const databaseUrl = await createDatabase(adminUrl);
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-soak-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const config = {
    models: {
      fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-bench', model: 'fake-model', price: { input: 1, output: 2 } },
    },
  };
  writeFileSync(join(home, 'config.yaml'), JSON.stringify(config, null, 2));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NESTCLAW_HOME: home,
    NESTCLAW_TOKEN: TOKEN,
    NESTCLAW_LOG__LEVEL: 'error',
    NESTCLAW_READY_LINE: '1',
    DATABASE_URL: databaseUrl,
    NODE_OPTIONS: process.env.NESTCLAW_BENCH_GATEWAY_NODE_OPTIONS ?? GATEWAY_NODE_FLAGS.join(' '),
    // Experiments with glibc's allocator (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, …) pass through.
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MALLOC_'))),
  };
  const gw: GatewayProcess = await startGatewayProcess(env, 120_000);
  cleanups.push(() => {
    if (gw.child.exitCode === null) gw.child.kill('SIGTERM');
  });
  const base = gw.url;
  const target = gatewayTarget(base, new Agent({ keepAlive: true, maxSockets: CONCURRENCY }));
  const statuses = new Map<string, number>();
  const serverErrors: string[] = [];
  let wsCases = 0;
  let peak = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  /** Sends `count` malformed inputs from CONCURRENCY clients; every HTTP answer must be a 4xx. */
  const abuse = async (count: number, report: boolean) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          const i = next++;
          const c = malformedCase(i);
          if (c.kind === 'ws') {
            if (report) wsCases++;
            await c.run(base);
            continue;
          }
          const status = await c.run(base, agent);
          if (typeof status === 'number' && (status >= 500 || status < 400)) serverErrors.push(`case ${i % 20}: ${status}`);
          if (!report) continue;
          const key = String(status);
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          if (i % 500 === 0) {
            peak = Math.max(peak, memoryOf(gw.pid).rssMb);
            log(`${i} malformed inputs sent`);
          }
        }
      }),
    );
  };
  // Warm-up: a few turns and every malformed case ten times, so "before" includes the code those paths
  // load and compile once (not growth); then settle.
  await concurrent(target, 50, 5, SESSION_TURNS, 'warm', 120_000);
  await abuse(200, false);
  await sleep(5000);
  const before = memoryOf(gw.pid);
  peak = before.rssMb;
  log(`gateway pid ${gw.pid}: RSS before ${before.rssMb} MB (after warm-up)`);
  const malformedStarted = now();
  await abuse(MALFORMED, true);

  if (gw.child.exitCode !== null) throw new Error('the gateway exited during the malformed inputs');
  const afterMalformed = memoryOf(gw.pid);
  const malformedSec = (now() - malformedStarted) / 1000;
  log(`${MALFORMED} malformed inputs (${wsCases} over WebSocket) in ${malformedSec.toFixed(1)} s; RSS ${afterMalformed.rssMb} MB`);

  const run = await concurrent(target, TURNS, CONCURRENCY, SESSION_TURNS, 'soak', 1_800_000, (n) => {
    if (n % 2000 === 0) log(`${n} turns`);
  });
  const afterTurns = memoryOf(gw.pid);
  log(`${run.turns} turns at ${run.turnsPerSec}/s; RSS ${afterTurns.rssMb} MB; idling ${IDLE_MS / 1000} s`);
  await sleep(IDLE_MS);
  const afterIdle = memoryOf(gw.pid);
  const growth = (afterIdle.rssMb - before.rssMb) / before.rssMb;
  const ok = growth <= TARGET_IDLE_GROWTH && serverErrors.length === 0 && run.turns === TURNS;

  const results = {
    date: new Date().toISOString(),
    malformed: {
      count: MALFORMED,
      overWebSocket: wsCases,
      seconds: round(malformedSec, 1),
      statuses: Object.fromEntries(statuses),
      serverErrors: serverErrors.slice(0, 20),
    },
    turns: { count: run.turns, turnsPerSec: run.turnsPerSec, latency: run.latency },
    rssMb: {
      before: before.rssMb,
      afterMalformed: afterMalformed.rssMb,
      peakDuringMalformed: peak,
      afterTurns: afterTurns.rssMb,
      afterIdle: afterIdle.rssMb,
      hwm: afterIdle.hwmMb,
    },
    idleSeconds: IDLE_MS / 1000,
    afterIdleVsBefore: `${(growth * 100).toFixed(1)} % (target ≤ ${TARGET_IDLE_GROWTH * 100} %)`,
    ok,
    totalSeconds: round((now() - started) / 1000, 1),
  };
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `soak-${results.date.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${JSON.stringify(results, null, 2)}\n`);
  log(
    `RSS before ${before.rssMb} MB → after malformed ${afterMalformed.rssMb} MB → after turns ${afterTurns.rssMb} MB → after ${IDLE_MS / 1000} s idle ${afterIdle.rssMb} MB: ${results.afterIdleVsBefore}; ${serverErrors.length} 5xx; ${ok ? 'PASS' : 'FAIL'}`,
  );
  return ok ? 0 : 1;
}

void main()
  .then(
    (code) => code,
    (e: unknown) => {
      process.stderr.write(`soak failed: ${(e as Error)?.stack ?? String(e)}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    await runCleanups();
    process.exit(code);
  });
