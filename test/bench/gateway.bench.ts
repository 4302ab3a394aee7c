/**
 * `npm run bench`: what the gateway adds on top of the model it fronts.
 *
 * Three processes so nobody shares an event loop: this one (load generator and report), the fake
 * OpenAI server (test/fixtures, run by fake-llm.process.ts) and the gateway itself, started from
 * the webpack bundle exactly as users run it (`node dist/apps/gateway/main.js --port 0`) on a fresh
 * PostgreSQL database that is dropped at the end. Every workload runs twice with the same request
 * shapes: through the gateway (`POST /v1/chat`) and straight at the fake server
 * (`POST /v1/chat/completions` with the messages the gateway would have sent: system prompt, tool
 * definitions, the last `history_limit` messages of the conversation, the new message). The
 * difference is the gateway's overhead: HTTP + auth + validation + the turn's PostgreSQL round trips
 * (open with the compaction summaries, the llm_calls row, close: 4 a plain turn; remembering batched)
 * + the OpenAI SDK.
 *
 * Workloads (after a warm-up that is not measured: 2,500 turns from 10 clients, since V8 optimises the
 * turn's code for about that long, plus 150 sequential and 10 streamed; ADR 0013):
 *   - 200 sequential non-streamed turns, gateway and direct interleaved; a new session every 10
 *     turns, so prompts stay small (≤ 19 history messages) and sessions keep being created;
 *   - 1,000 turns from 10 concurrent clients, each keeping one session for the whole run (history
 *     reaches the 40-message window after 20 turns), then the same against the fake server;
 *   - 100 streamed turns (SSE), interleaved: time to the first `event: token` vs the first content
 *     chunk straight from the fake server;
 *   - start-up (spawn → NESTCLAW_READY line) on a fresh database and on restarts, and with the
 *     embedded database (first start = initdb, second start);
 *   - RSS (/proc/<pid>/status VmRSS) idle, after the workloads, then through a 10,000-turn soak at
 *     10 concurrent clients (a new session every 10 turns), comparing after 1,000 with the end;
 *   - prompt tokens the model receives for "hello" on a fresh session.
 * Nothing is forced (no --expose-gc): RSS is what the process holds.
 * Memory under abuse (10,000 malformed inputs incl. 1–8 MB bodies and bad WebSocket frames, then
 * 10,000 turns, then idle) is `npm run soak` (soak.bench.ts), on the same process helpers.
 *
 * Options (after `npm run bench --`):
 *   --quick          smaller counts (smoke run, ~30 s)
 *   --soak N         turns in the RSS soak (default 10000)
 *   --no-embedded    skip the embedded-database start-up measurement
 *   --profile        CPU-profile the gateway during the concurrent + soak workloads
 *                    (bench-results/gateway-<timestamp>.cpuprofile)
 * Env: NESTCLAW_BENCH_PG_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres),
 *      NESTCLAW_BENCH_TOKENIZER (module for the real token count; default gpt-tokenizer),
 *      NESTCLAW_BENCH_GATEWAY_NODE_OPTIONS (NODE_OPTIONS for the gateway only; default
 *        GATEWAY_NODE_FLAGS, as `npm start` runs it),
 *      NESTCLAW_BENCH_PG_OPTIONS (libpq `options` for the gateway's connections, e.g. "-c synchronous_commit=off"),
 *      NESTCLAW_<SECTION>__<KEY> config overrides are passed on to the gateway
 *      (e.g. NESTCLAW_PROVIDERS__TIMEOUT_BUDGET=5s).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Conversation,
  GATEWAY_MAIN,
  HISTORY_LIMIT,
  ROOT,
  SESSION_TURNS,
  TOKEN,
  cleanups,
  concurrent,
  createDatabase,
  directTarget,
  gatewayTarget,
  memoryOf,
  now,
  postgresSettings,
  profiler,
  round,
  runCleanups,
  sequentialPaired,
  sleep,
  startFakeLlm,
  startGatewayProcess,
  stopChild,
  summarize,
  type GatewayProcess,
  type PromptTemplate,
  type WireMessage,
  GATEWAY_ALLOCATOR_ENV,
  GATEWAY_NODE_FLAGS,
} from './bench-support';

const RESULTS_DIR = join(ROOT, 'bench-results');
/** The whole run is stopped after this, children and database cleaned up. */
const RUN_BUDGET_MS = 175_000;
const CONCURRENCY = 10;

const { values: argv } = parseArgs({
  args: process.argv.slice(2),
  options: {
    quick: { type: 'boolean', default: false },
    soak: { type: 'string' },
    'no-embedded': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
  strict: true,
});
const QUICK = !!argv.quick;
const COUNTS = {
  warmup: QUICK ? 50 : 150,
  warmupConcurrent: QUICK ? 100 : 2500,
  sequential: QUICK ? 100 : 200,
  concurrent: QUICK ? 300 : 1000,
  streaming: QUICK ? 50 : 100,
  soak: argv.soak ? Number(argv.soak) : QUICK ? 2000 : 10_000,
  soakCheckpoint: QUICK ? 500 : 1000,
  restarts: QUICK ? 2 : 3,
};

const TARGETS = {
  addedP50Ms: 3,
  addedP99Ms: 15,
  turnsPerSec: 300,
  /** Issue 11: memory recall adds ≤ 3 ms p50 to a turn (keyword-only: the bench configures no embedding model). */
  memoryAddsP50Ms: 3,
  streamFirstTokenOverheadMs: 2,
  startupMs: 2000,
  idleRssMb: 150,
  soakRssGrowth: 0.1,
};

// ───────────────────────────── prompt tokens ─────────────────────────────

async function realTokenCount(body: {
  messages: WireMessage[];
  tools?: unknown[];
}): Promise<{ tokens: number; tokenizer: string } | undefined> {
  const name = process.env.NESTCLAW_BENCH_TOKENIZER || 'gpt-tokenizer';
  type Tokenizer = {
    encode?: (text: string) => unknown[];
    encodeChat?: (chat: { role: string; content: string }[], model: string) => unknown[];
  };
  let mod: Tokenizer;
  try {
    mod = (await import(name)) as Tokenizer;
  } catch {
    return undefined;
  }
  if (typeof mod.encode !== 'function') return undefined;
  const tools = body.tools?.length ? mod.encode(JSON.stringify(body.tools)).length : 0;
  const chat = body.messages.map((m) => ({ role: m.role, content: m.content ?? '' }));
  if (typeof mod.encodeChat === 'function') {
    try {
      const tokens = mod.encodeChat(chat, 'gpt-4o').length + tools;
      return { tokens, tokenizer: `${name} (o200k_base, gpt-4o chat framing; tool definitions counted as their JSON)` };
    } catch {
      // fall through to plain encode()
    }
  }
  // OpenAI chat framing: ~3 tokens a message + 3 for the reply primer.
  let tokens = 3 + tools;
  for (const m of chat) tokens += 3 + mod.encode(m.role).length + mod.encode(m.content).length;
  return { tokens, tokenizer: `${name} encode() (+3 tokens a message; tool definitions counted as their JSON)` };
}

// ───────────────────────────── report ─────────────────────────────

interface TargetCheck {
  name: string;
  measured: number;
  target: string;
  unit: string;
  pass: boolean;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n');
}

const ms = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? 'n/a' : `${x.toFixed(2)} ms`);

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

// ───────────────────────────── main ─────────────────────────────

async function main(): Promise<number> {
  const runStarted = now();
  const log = (line: string) => process.stdout.write(`[bench ${((now() - runStarted) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
  const remaining = () => RUN_BUDGET_MS - (now() - runStarted);
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${GATEWAY_MAIN} is missing: run \`npm run build\` first`);
  const timestamp = new Date().toISOString().replace(/[:.]/g, '-');
  const loadAtStart = loadavg().map((x) => round(x, 2));
  if (loadAtStart[0] > cpus().length / 2) {
    log(
      `warning: the machine is busy (load average ${loadAtStart.join(' ')} on ${cpus().length} CPUs); figures will be pessimistic and noisy`,
    );
  }
  mkdirSync(RESULTS_DIR, { recursive: true });

  // 1. Fake model, database, NESTCLAW_HOME.
  const llm = await startFakeLlm();
  log(`fake LLM on ${llm.url} (pid ${llm.child.pid})`);
  const adminUrl = process.env.NESTCLAW_BENCH_PG_URL ?? process.env.NESTCLAW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  let databaseUrl: string;
  try {
    databaseUrl = await createDatabase(adminUrl);
  } catch (e) {
    throw new Error(`no PostgreSQL at ${adminUrl.replace(/:[^:@/]+@/, ':***@')} (${(e as Error).message}); set NESTCLAW_BENCH_PG_URL`);
  }
  const pgSettings = await postgresSettings(databaseUrl);
  log(
    `database ${new URL(databaseUrl).pathname.slice(1)} (PostgreSQL ${pgSettings.server_version}, synchronous_commit=${pgSettings.synchronous_commit})`,
  );
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-bench-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const config = {
    models: {
      fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-bench', model: 'fake-model', price: { input: 1, output: 2 } },
    },
    agents: { default: { history_limit: HISTORY_LIMIT } },
  };
  writeFileSync(join(home, 'config.yaml'), JSON.stringify(config, null, 2)); // JSON is YAML
  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NESTCLAW_HOME: home,
    NESTCLAW_TOKEN: TOKEN,
    NESTCLAW_LOG__LEVEL: 'warn',
    NESTCLAW_READY_LINE: '1',
    // Experiments: config overrides (NESTCLAW_<SECTION>__<KEY>) and node flags pass through to the gateway.
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => k.startsWith('NESTCLAW_') && k.includes('__') && k !== 'NESTCLAW_LOG__LEVEL'),
    ),
    // The heap cap `npm start` and the Dockerfile use: without it V8 keeps growing the heap under
    // steady load (heapUsed after GC stays flat; RSS does not), which the RSS-growth target measures.
    NODE_OPTIONS: process.env.NESTCLAW_BENCH_GATEWAY_NODE_OPTIONS ?? GATEWAY_NODE_FLAGS.join(' '),
    ...GATEWAY_ALLOCATOR_ENV,
  };
  const pgEnv = { ...baseEnv, DATABASE_URL: databaseUrl };

  // 2. Start-up: a fresh database (migrations run), then restarts; the last one stays up for the load.
  const fresh = await startGatewayProcess(pgEnv, 20_000);
  log(`gateway start on a fresh database: ${fresh.startupMs.toFixed(0)} ms`);
  await stopChild(fresh.child);
  const restarts: number[] = [];
  const profilePath = argv.profile ? join(RESULTS_DIR, `gateway-${timestamp}.cpuprofile`) : undefined;
  let gw: GatewayProcess | undefined;
  for (let i = 0; i < COUNTS.restarts; i++) {
    const last = i === COUNTS.restarts - 1;
    const env = last && profilePath ? { ...pgEnv, NESTCLAW_BENCH_PROFILE: profilePath } : pgEnv;
    const g = await startGatewayProcess(env, 20_000, last && profilePath ? join(__dirname, 'cpu-profile.preload.js') : undefined);
    restarts.push(g.startupMs);
    if (last) gw = g;
    else await stopChild(g.child);
  }
  const gateway = gw!;
  gatewayUnderLoad = gateway;
  cleanups.push(() => stopChild(gateway.child));
  log(`gateway restarts: ${restarts.map((x) => x.toFixed(0)).join(', ')} ms (pid ${gateway.pid}, ${gateway.url.origin})`);
  await sleep(1000);
  const idle = memoryOf(gateway.pid);
  log(`idle RSS ${idle.rssMb} MB`);

  const gatewayAgent = new Agent({ keepAlive: true, maxSockets: 64 });
  const directAgent = new Agent({ keepAlive: true, maxSockets: 64 });
  cleanups.push(() => {
    gatewayAgent.destroy();
    directAgent.destroy();
  });
  const gatewayT = gatewayTarget(gateway.url, gatewayAgent);

  // 3. Prompt for "hello" on a fresh session; it is also the template of the direct requests.
  await gatewayT.turn(new Conversation(Infinity), 'hello', false);
  const hello = await llm.last();
  if (!hello.request) throw new Error('the fake LLM saw no request for "hello"');
  const helloBody = hello.request.body;
  const { messages: helloMessages, stream: _stream, ...rest } = helloBody;
  if (helloMessages[0]?.role !== 'system' || helloMessages.length !== 2) {
    throw new Error(`unexpected prompt shape for "hello": ${JSON.stringify(helloMessages).slice(0, 300)}`);
  }
  const template: PromptTemplate = { system: helloMessages[0], rest };
  const real = await realTokenCount(helloBody);
  const promptTokens = {
    estimate: hello.promptTokens!,
    estimateMethod: 'fake-openai.server estimateTokens: ceil(chars(JSON(messages) + JSON(tools)) / 4)',
    real: real?.tokens,
    realMethod: real?.tokenizer,
    chars: {
      systemPrompt: helloMessages[0].content?.length ?? 0,
      user: 'hello'.length,
      toolsJson: helloBody.tools ? JSON.stringify(helloBody.tools).length : 0,
      messagesJson: JSON.stringify(helloMessages).length,
    },
    toolNames: (helloBody.tools ?? []).map((t) => (t as { function?: { name?: string } }).function?.name),
  };
  log(`prompt for "hello": ≈${promptTokens.estimate} tokens (estimate)${real ? `, ${real.tokens} (${real.tokenizer})` : ''}`);
  const directT = directTarget(new URL(llm.url), directAgent, template);

  // 4. Warm-up (JIT, pools, keep-alive sockets); not measured.
  await sequentialPaired(gatewayT, directT, COUNTS.warmup, false, 'warmup');
  await concurrent(gatewayT, COUNTS.warmupConcurrent, CONCURRENCY, SESSION_TURNS, 'warmup-c', 20_000);
  await concurrent(directT, COUNTS.warmupConcurrent, CONCURRENCY, SESSION_TURNS, 'warmup-c', 20_000);
  await sequentialPaired(gatewayT, directT, 10, true, 'warmup-s');
  log('warm-up done');

  // 5. Sequential non-streamed turns.
  const seq = await sequentialPaired(gatewayT, directT, COUNTS.sequential, false, 'seq');
  const seqG = summarize(seq.gateway.map((r) => r.totalMs));
  const seqD = summarize(seq.direct.map((r) => r.totalMs));
  const seqPaired = summarize(seq.gateway.map((r, i) => r.totalMs - seq.direct[i].totalMs));
  log(`sequential ×${COUNTS.sequential}: gateway p50 ${ms(seqG.p50)}, direct p50 ${ms(seqD.p50)}`);

  // 6. Concurrency: each client keeps its own session for the whole run (history reaches the limit).
  if (profilePath) await profiler(gateway, 'start');
  const concG = await concurrent(gatewayT, COUNTS.concurrent, CONCURRENCY, Infinity, 'conc', 40_000);
  const concD = await concurrent(directT, COUNTS.concurrent, CONCURRENCY, Infinity, 'conc', 40_000);
  log(`${COUNTS.concurrent} turns ×${CONCURRENCY}: gateway ${concG.turnsPerSec} turns/s, direct ${concD.turnsPerSec} turns/s`);

  // 7. Streaming: time to the first token.
  const str = await sequentialPaired(gatewayT, directT, COUNTS.streaming, true, 'stream');
  const ttftG = summarize(str.gateway.map((r) => r.firstTokenMs!));
  const ttftD = summarize(str.direct.map((r) => r.firstTokenMs!));
  const streamTotalG = summarize(str.gateway.map((r) => r.totalMs));
  const streamTotalD = summarize(str.direct.map((r) => r.totalMs));
  log(`streaming ×${COUNTS.streaming}: first token gateway p50 ${ms(ttftG.p50)}, direct p50 ${ms(ttftD.p50)}`);

  await sleep(500);
  const afterLoad = memoryOf(gateway.pid);
  log(`RSS after the workloads ${afterLoad.rssMb} MB`);

  // 8. Soak: RSS after the first checkpoint vs at the end (10 clients, a new session every 10 turns).
  const soakTimeline: { turns: number; rssMb: number; seconds: number; turnsPerSec: number }[] = [];
  const soakStarted = now();
  const soakLimitMs = Math.max(10_000, Math.min(80_000, remaining() - 45_000));
  const soak = await concurrent(gatewayT, COUNTS.soak, CONCURRENCY, SESSION_TURNS, 'soak', soakLimitMs, (done) => {
    if (done % COUNTS.soakCheckpoint !== 0) return;
    const seconds = (now() - soakStarted) / 1000;
    const prev = soakTimeline[soakTimeline.length - 1];
    const turnsPerSec = (done - (prev?.turns ?? 0)) / (seconds - (prev?.seconds ?? 0));
    soakTimeline.push({ turns: done, rssMb: memoryOf(gateway.pid).rssMb, seconds: round(seconds, 2), turnsPerSec: round(turnsPerSec, 1) });
  });
  if (profilePath) await profiler(gateway, 'stop');
  const soakEnd = memoryOf(gateway.pid);
  const firstCheckpoint = soakTimeline[0];
  const rssGrowth = firstCheckpoint ? (soakEnd.rssMb - firstCheckpoint.rssMb) / firstCheckpoint.rssMb : NaN;
  // Still climbing in the second half means retention; flat means V8 had merely sized its heap to the load.
  const midCheckpoint = soakTimeline.find((p) => p.turns >= soak.turns / 2);
  const rssGrowthSecondHalf = midCheckpoint ? (soakEnd.rssMb - midCheckpoint.rssMb) / midCheckpoint.rssMb : NaN;
  log(
    `soak ${soak.turns}${soak.truncated ? ' (time limit)' : ''} turns at ${soak.turnsPerSec} turns/s: RSS ${firstCheckpoint?.rssMb} MB after ${firstCheckpoint?.turns}, ${soakEnd.rssMb} MB at the end`,
  );

  // 8b. What memory adds to a turn, against a corpus that grew by a transcript every turn above:
  // the same database behind a second gateway with memory off, requests alternating between the two.
  const memoryOff = await startGatewayProcess({ ...pgEnv, NESTCLAW_MEMORY__ENABLED: 'false' }, 20_000);
  cleanups.push(() => stopChild(memoryOff.child));
  const offAgent = new Agent({ keepAlive: true, maxSockets: 8 });
  cleanups.push(() => offAgent.destroy());
  const memoryOffT = gatewayTarget(memoryOff.url, offAgent);
  await sequentialPaired(gatewayT, memoryOffT, 20, false, 'mem-warmup');
  const memoryStatus = (await (
    await fetch(new URL('/v1/memory/status', gateway.url), { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json()) as { indexedChunks?: number; mode?: string };
  const mem = await sequentialPaired(gatewayT, memoryOffT, COUNTS.sequential, false, 'mem');
  const memoryAdds = summarize(mem.gateway.map((r, i) => r.totalMs - mem.direct[i].totalMs));
  const memoryOnP50 = summarize(mem.gateway.map((r) => r.totalMs)).p50;
  const memoryOffP50 = summarize(mem.direct.map((r) => r.totalMs)).p50;
  log(
    `memory on vs off (${memoryStatus.indexedChunks} chunks indexed, ${memoryStatus.mode}): p50 ${ms(memoryOnP50)} vs ${ms(memoryOffP50)}, paired difference p50 ${ms(memoryAdds.p50)}`,
  );
  await stopChild(memoryOff.child);
  await stopChild(gateway.child);

  // 9. Embedded database: first start (initdb) and second start, if there is time.
  let embedded: { firstStartMs: number; secondStartMs?: number; idleRssMb: number; secondIdleRssMb?: number } | { skipped: string };
  if (argv['no-embedded']) embedded = { skipped: '--no-embedded' };
  else if (remaining() < 50_000) embedded = { skipped: `not enough time left (${Math.round(remaining() / 1000)} s)` };
  else {
    const embHome = mkdtempSync(join(tmpdir(), 'nestclaw-bench-embedded-'));
    cleanups.push(() => rmSync(embHome, { recursive: true, force: true }));
    writeFileSync(join(embHome, 'config.yaml'), JSON.stringify(config, null, 2));
    const embEnv = { ...baseEnv, NESTCLAW_HOME: embHome };
    const first = await startGatewayProcess(embEnv, Math.min(60_000, remaining() - 25_000));
    cleanups.push(() => stopChild(first.child, 15_000));
    await sleep(500);
    const embIdle = memoryOf(first.pid);
    await stopChild(first.child, 15_000);
    log(`embedded first start ${first.startupMs.toFixed(0)} ms (RSS ${embIdle.rssMb} MB)`);
    let secondStartMs: number | undefined;
    let secondIdleRssMb: number | undefined;
    if (remaining() > 25_000) {
      const second = await startGatewayProcess(embEnv, Math.min(30_000, remaining() - 10_000));
      cleanups.push(() => stopChild(second.child, 15_000));
      secondStartMs = round(second.startupMs, 1);
      await sleep(500);
      secondIdleRssMb = memoryOf(second.pid).rssMb;
      await stopChild(second.child, 15_000);
      log(`embedded second start ${secondStartMs.toFixed(0)} ms (RSS ${secondIdleRssMb} MB)`);
    }
    embedded = { firstStartMs: round(first.startupMs, 1), secondStartMs, idleRssMb: embIdle.rssMb, secondIdleRssMb };
  }

  // 10. Report.
  const added = { p50: round(seqG.p50 - seqD.p50, 3), p95: round(seqG.p95 - seqD.p95, 3), p99: round(seqG.p99 - seqD.p99, 3) };
  const ttftOverheadP50 = round(ttftG.p50 - ttftD.p50, 3);
  const restartMedian = [...restarts].sort((a, b) => a - b)[Math.floor(restarts.length / 2)];
  const checks: TargetCheck[] = [
    {
      name: 'added latency p50 (sequential)',
      measured: added.p50,
      target: `≤ ${TARGETS.addedP50Ms}`,
      unit: 'ms',
      pass: added.p50 <= TARGETS.addedP50Ms,
    },
    {
      name: 'added latency p99 (sequential)',
      measured: added.p99,
      target: `≤ ${TARGETS.addedP99Ms}`,
      unit: 'ms',
      pass: added.p99 <= TARGETS.addedP99Ms,
    },
    {
      name: `throughput at ${CONCURRENCY} concurrent`,
      measured: concG.turnsPerSec,
      target: `≥ ${TARGETS.turnsPerSec}`,
      unit: 'turns/s',
      pass: concG.turnsPerSec >= TARGETS.turnsPerSec,
    },
    {
      name: 'streaming first-token overhead p50',
      measured: ttftOverheadP50,
      target: `≤ ${TARGETS.streamFirstTokenOverheadMs}`,
      unit: 'ms',
      pass: ttftOverheadP50 <= TARGETS.streamFirstTokenOverheadMs,
    },
    {
      name: `memory recall adds (p50, on − off, ${memoryStatus.indexedChunks} chunks)`,
      measured: round(memoryAdds.p50, 3),
      target: `≤ ${TARGETS.memoryAddsP50Ms}`,
      unit: 'ms',
      pass: memoryAdds.p50 <= TARGETS.memoryAddsP50Ms,
    },
    {
      name: 'start-up, restart (median)',
      measured: round(restartMedian, 1),
      target: `≤ ${TARGETS.startupMs}`,
      unit: 'ms',
      pass: restartMedian <= TARGETS.startupMs,
    },
    {
      name: 'start-up, fresh database (migrations)',
      measured: round(fresh.startupMs, 1),
      target: `≤ ${TARGETS.startupMs}`,
      unit: 'ms',
      pass: fresh.startupMs <= TARGETS.startupMs,
    },
    { name: 'idle RSS', measured: idle.rssMb, target: `≤ ${TARGETS.idleRssMb}`, unit: 'MB', pass: idle.rssMb <= TARGETS.idleRssMb },
    {
      name: `RSS growth ${firstCheckpoint?.turns ?? '?'} → ${soak.turns} soak turns`,
      measured: round(rssGrowth * 100, 1),
      target: `≤ ${TARGETS.soakRssGrowth * 100}`,
      unit: '%',
      pass: !soak.truncated && rssGrowth <= TARGETS.soakRssGrowth,
    },
  ];

  const results = {
    timestamp: new Date().toISOString(),
    commit: gitCommit(),
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      platform: process.platform,
      loadavgAtStart: loadAtStart,
      loadavgAtEnd: loadavg().map((x) => round(x, 2)),
    },
    postgres: pgSettings,
    setup: {
      quick: QUICK,
      counts: COUNTS,
      concurrency: CONCURRENCY,
      sessionTurns: SESSION_TURNS,
      historyLimit: HISTORY_LIMIT,
      client: 'node:http keep-alive Agent, one per target',
      gateway: 'node dist/apps/gateway/main.js --port 0 (own process), NESTCLAW_LOG__LEVEL=warn',
      fakeLlm: 'test/fixtures/fake-openai.server.ts in its own process, tokenDelayMs 0',
    },
    sequential: { gateway: seqG, direct: seqD, added, pairedDifference: seqPaired },
    memory: {
      indexedChunks: memoryStatus.indexedChunks,
      mode: memoryStatus.mode,
      onP50: memoryOnP50,
      offP50: memoryOffP50,
      pairedDifference: memoryAdds,
    },
    concurrent: { gateway: concG, direct: concD, ratio: round(concG.turnsPerSec / concD.turnsPerSec, 3) },
    streaming: {
      firstToken: { gateway: ttftG, direct: ttftD, overheadP50: ttftOverheadP50, overheadP95: round(ttftG.p95 - ttftD.p95, 3) },
      total: { gateway: streamTotalG, direct: streamTotalD },
    },
    startup: {
      freshDatabaseMs: round(fresh.startupMs, 1),
      restartsMs: restarts.map((x) => round(x, 1)),
      restartMedianMs: round(restartMedian, 1),
      embedded,
    },
    rss: {
      idleMb: idle.rssMb,
      afterLoadMb: afterLoad.rssMb,
      soak: {
        turns: soak.turns,
        truncated: soak.truncated,
        turnsPerSec: soak.turnsPerSec,
        latency: soak.latency,
        firstCheckpoint,
        endMb: soakEnd.rssMb,
        peakMb: soakEnd.hwmMb,
        growth: round(rssGrowth, 4),
        growthSecondHalf: round(rssGrowthSecondHalf, 4),
        midCheckpoint,
        timeline: soakTimeline,
      },
    },
    promptTokens,
    profile: profilePath && existsSync(profilePath) ? profilePath : undefined,
    targets: checks,
    durationSec: round((now() - runStarted) / 1000, 1),
  };
  const file = join(RESULTS_DIR, `gateway-${timestamp}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);

  const emb = 'firstStartMs' in embedded ? embedded : undefined;
  const out: string[] = [];
  out.push(
    '',
    `nestclaw gateway benchmark — ${results.timestamp} — commit ${results.commit ?? '?'} — node ${process.version}, ${cpus().length} CPUs`,
  );
  out.push(
    `load average at start ${loadAtStart.join(' ')}, at end ${results.machine.loadavgAtEnd.join(' ')} (other work on the machine skews every figure)`,
  );
  out.push('');
  out.push(
    table([
      ['sequential non-streamed turn', 'gateway', 'direct', 'added'],
      ...(['p50', 'p95', 'p99'] as const).map((p) => [`  latency ${p}`, ms(seqG[p]), ms(seqD[p]), ms(added[p])]),
      ['  paired difference p50 / p99', '', '', `${ms(seqPaired.p50)} / ${ms(seqPaired.p99)}`],
      ['', '', '', ''],
      [`${COUNTS.concurrent} turns, ${CONCURRENCY} concurrent clients`, 'gateway', 'direct', 'ratio'],
      ['  throughput (turns/s)', `${concG.turnsPerSec}`, `${concD.turnsPerSec}`, `${results.concurrent.ratio}`],
      [
        '  latency p50 / p99',
        `${ms(concG.latency.p50)} / ${ms(concG.latency.p99)}`,
        `${ms(concD.latency.p50)} / ${ms(concD.latency.p99)}`,
        '',
      ],
      ['', '', '', ''],
      [`streaming (${COUNTS.streaming} turns)`, 'gateway', 'direct', 'overhead'],
      ['  first token p50', ms(ttftG.p50), ms(ttftD.p50), ms(ttftOverheadP50)],
      ['  first token p95', ms(ttftG.p95), ms(ttftD.p95), ms(results.streaming.firstToken.overheadP95)],
      ['  whole stream p50', ms(streamTotalG.p50), ms(streamTotalD.p50), ms(round(streamTotalG.p50 - streamTotalD.p50, 3))],
      ['', '', '', ''],
      ['start-up (spawn → READY)', '', '', ''],
      ['  PostgreSQL, fresh database', `${fresh.startupMs.toFixed(0)} ms`, '', ''],
      ['  PostgreSQL, restarts', restarts.map((x) => x.toFixed(0)).join(' / ') + ' ms', '', ''],
      [
        '  embedded, first / second start',
        emb ? `${emb.firstStartMs.toFixed(0)} / ${emb.secondStartMs?.toFixed(0) ?? 'n/a'} ms` : `skipped`,
        '',
        '',
      ],
      ['', '', '', ''],
      ['gateway RSS', '', '', ''],
      ['  idle', `${idle.rssMb} MB`, '', ''],
      ['  after the workloads above', `${afterLoad.rssMb} MB`, '', ''],
      ...soakTimeline.map((p) => [`  soak, after ${p.turns} turns`, `${p.rssMb} MB`, `${p.turnsPerSec} turns/s`, '']),
      [`  soak, end (${soak.turns} turns, ${soak.turnsPerSec} turns/s)`, `${soakEnd.rssMb} MB`, `peak ${soakEnd.hwmMb} MB`, ''],
      [
        `  growth ${firstCheckpoint?.turns ?? '?'} → ${soak.turns} / ${midCheckpoint?.turns ?? '?'} → ${soak.turns}`,
        `${round(rssGrowth * 100, 1)} % / ${round(rssGrowthSecondHalf * 100, 1)} %`,
        '',
        '',
      ],
      ...(emb
        ? [['  embedded database, idle after first / second start', `${emb.idleRssMb} / ${emb.secondIdleRssMb ?? 'n/a'} MB`, '', '']]
        : []),
      ['', '', '', ''],
      [
        'prompt for "hello" (fresh session)',
        `≈${promptTokens.estimate} tokens`,
        real ? `${real.tokens} (tokenizer)` : 'chars/4 estimate',
        '',
      ],
      [
        '  chars: system / tools JSON / user',
        `${promptTokens.chars.systemPrompt} / ${promptTokens.chars.toolsJson} / ${promptTokens.chars.user}`,
        `tools: ${promptTokens.toolNames.join(', ')}`,
        '',
      ],
    ]),
  );
  out.push('');
  out.push(
    table([
      ['target', 'measured', 'target', ''],
      ...checks.map((c) => [c.name, `${c.measured} ${c.unit}`, `${c.target} ${c.unit}`, c.pass ? 'PASS' : 'MISS']),
    ]),
  );
  out.push('', `results: ${file} (and bench-results/latest.json)${results.profile ? `\nCPU profile: ${results.profile}` : ''}`, '');
  process.stdout.write(out.join('\n'));
  return 0;
}

/** Set once the run is being torn down (signal or time budget): failures after that are expected. */
let stopping = false;
/** The gateway under load, for its last log lines when the run fails. */
let gatewayUnderLoad: GatewayProcess | undefined;

function stop(reason: string, code: number): void {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`\nbench: ${reason}; cleaning up\n`);
  void runCleanups().finally(() => process.exit(code));
}

const watchdog = setTimeout(() => stop(`exceeded its ${RUN_BUDGET_MS / 1000} s budget`, 2), RUN_BUDGET_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop(signal, 130));

main()
  .then(
    (code) => code,
    (e: unknown) => {
      if (stopping) return new Promise<number>(() => undefined); // stop() exits
      process.stderr.write(`\nbench failed: ${(e as Error)?.stack ?? String(e)}\n`);
      const tail = gatewayUnderLoad?.output.slice(-20) ?? [];
      if (tail.length) process.stderr.write(`last gateway output:\n${tail.join('\n')}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    await runCleanups();
    clearTimeout(watchdog);
    process.exit(code);
  })
  .catch(() => process.exit(1));
