/**
 * `npm run bench` (observability part): what metrics and tracing cost, measured in one run.
 *
 * Processes: this one (load generator, a counting OTLP/HTTP receiver, report), the fake OpenAI
 * server (fake-llm.process.ts) and gateways started from the webpack bundle as users run them, each
 * on its own fresh PostgreSQL database (dropped at the end):
 *   - "off": observability.metrics.enabled false, no OTEL endpoint;
 *   - "on":  metrics on and scraped every second, traces exported over OTLP/HTTP to the receiver;
 *   - "wide": 20 models and 10 agents configured and used, for the scrape-time figure.
 * Figures:
 *   - throughput on/off: after an interleaved warm-up (20 × 150 turns each, so V8 has finished
 *     optimising the turn's code in all three), 24 rounds of 300 turns from 10 concurrent clients,
 *     off / metrics / on in turn (order reversed every other round) so all see the same machine; ratio of the totals and the
 *     median of per-round ratios (goal ≥ 0.95); the gateway's CPU time per turn (/proc utime+stime),
 *     which a busy shared machine disturbs far less than wall-clock rates; and the CPU a turn's
 *     trace costs on its own, in a child process (tracing-pipeline.process.ts);
 *   - /metrics scrape time on "wide" after every agent×model pair has been used: median and p95 of
 *     100 scrapes, client-side (goal ≤ 10 ms);
 *   - series: the number of series in a scrape before and after 10,000 turns (2,000 with --quick),
 *     each in a new session, after a warm-up of 200 (goal: unchanged).
 * Options (after `npm run bench --`): --quick (smaller counts); --series (only the series figure,
 * 10,000 sessions of one short turn each, ~3 min); --profile (CPU-profiles the "off" and "on"
 * gateways during the measured rounds: bench-results/observability-{off,on}.cpuprofile); the
 * other bench's options are ignored.
 * Env: NESTCLAW_BENCH_PG_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres);
 *      OTEL_BSP_* pass to the tracing gateway, to compare batch settings with tracing.setup.ts's.
 */
import { ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createScratchDatabase } from '../support/scratch-database';
import { GATEWAY_ALLOCATOR_ENV, GATEWAY_NODE_FLAGS } from './bench-support';

const ROOT = resolve(__dirname, '../..');
const GATEWAY_MAIN = join(ROOT, 'dist/apps/gateway/main.js');
const TOKEN = 'bench-token-0123456789abcdef';
const QUICK = process.argv.includes('--quick');
const ADMIN_URL = process.env.NESTCLAW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONCURRENCY = 10;
const ROUNDS = QUICK ? 6 : 24;
const ROUND_TURNS = QUICK ? 100 : 300;
const WARM_CYCLES = QUICK ? 4 : 20;
const WARM_TURNS = 150;
const SERIES_ONLY = process.argv.includes('--series');
const PROFILE = process.argv.includes('--profile');
const SESSIONS = QUICK && !SERIES_ONLY ? 2000 : 10_000;
/** More clients for the series part: its turns are one short request each, in new sessions. */
const SESSION_CONCURRENCY = 20;

const cleanups: (() => Promise<void> | void)[] = [];
/** Turns retried after a 503 database_unavailable, per gateway mode. */
const databaseRetries: Record<string, number> = {};
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function http(url: URL, path: string, body?: unknown): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((ok, fail) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path,
        method: data ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${TOKEN}`, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, text, ms: performance.now() - started }));
      },
    );
    req.on('error', fail);
    req.end(data);
  });
}

async function startFakeLlm(): Promise<string> {
  const child = fork(join(__dirname, 'fake-llm.process.ts'), [], {
    execArgv: ['-r', join(ROOT, 'scripts/ts-register.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  cleanups.push(() => void child.kill('SIGTERM'));
  return new Promise((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`fake LLM exited with ${code}`)));
    child.on('message', (m: { type?: string; url?: string }) => m?.type === 'ready' && m.url && ok(m.url));
  });
}

/** Counts what an OpenTelemetry collector would receive, without decoding it. */
async function startOtlpReceiver(): Promise<{ url: string; stats: { requests: number; bytes: number } }> {
  const stats = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (stats.bytes += c.length));
    req.on('end', () => {
      stats.requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, stats };
}

async function createDatabase(): Promise<string> {
  const scratch = await createScratchDatabase(ADMIN_URL, 'nestclaw_obsbench');
  cleanups.push(scratch.drop);
  return scratch.url;
}

type Gateway = URL & { pid: number; mode: string; child: ChildProcess };

async function startGateway(mode: string, config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, profile = false): Promise<Gateway> {
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-obsbench-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(join(home, 'config.yaml'), JSON.stringify(config));
  const preload = profile ? ['-r', join(__dirname, 'cpu-profile.preload.js')] : [];
  const child: ChildProcess = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, ...preload, GATEWAY_MAIN, '--port', '0'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      ...GATEWAY_ALLOCATOR_ENV,
      NESTCLAW_HOME: home,
      NESTCLAW_TOKEN: TOKEN,
      DATABASE_URL: await createDatabase(),
      NESTCLAW_READY_LINE: '1',
      NESTCLAW_LOG__LEVEL: 'warn',
      // Other jobs' CREATE DATABASE checkpoints stall commits for seconds on the shared machine; the
      // default 5 s bound turned such stalls into failed turns. Same bound for every mode.
      NESTCLAW_DATABASE__QUERY_TIMEOUT: '30s',
      // Fewer connections per gateway: five gateways and other jobs' tests share one server, and a
      // burst of backends starting at once under load is what timed out connects (3 s) here.
      NESTCLAW_DATABASE__POOL_SIZE: '4',
      ...env,
      ...(profile ? { NESTCLAW_BENCH_PROFILE: join(ROOT, 'bench-results', `observability-${mode}.cpuprofile`) } : {}),
    },
    // --profile: an IPC channel drives the profiler preload.
    stdio: profile ? ['ignore', 'pipe', 'inherit', 'ipc'] : ['ignore', 'pipe', 'inherit'],
  });
  cleanups.unshift(
    () => new Promise<void>((r) => (child.exitCode !== null ? r() : (child.once('exit', () => r()), child.kill('SIGTERM')))),
  );
  return new Promise((ok, fail) => {
    let out = '';
    child.once('exit', (code) => fail(new Error(`gateway exited with ${code}: ${out}`)));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /NESTCLAW_READY (\S+)/.exec(out);
      if (m) ok(Object.assign(new URL(m[1]), { pid: child.pid!, mode, child }));
    });
  });
}

/** Sends `{ profile: command }` to the profiler preload and waits for its answer. */
function profiler(g: Gateway, command: 'start' | 'stop'): Promise<void> {
  return new Promise((ok) => {
    const onMessage = (m: { profile?: string }) => {
      if (m?.profile !== (command === 'start' ? 'started' : 'written')) return;
      g.child.off('message', onMessage);
      ok();
    };
    g.child.on('message', onMessage);
    g.child.send({ profile: command });
  });
}

let loads = 0;

/** `total` turns from CONCURRENCY clients; each client keeps a session unless `fresh`. Returns turns/s. */
async function load(
  url: URL & { mode?: string },
  total: number,
  options: { fresh?: boolean; agents?: string[]; concurrency?: number } = {},
): Promise<number> {
  let next = 0;
  // Unique texts per load: a repeated first message would be answered from the idempotency cache
  // (a cheaper turn, and a first-seen outcome="cached" series), not by the model.
  const tag = ++loads;
  const started = performance.now();
  const client = async (c: number) => {
    let sessionId: string | undefined;
    for (let i = next++; i < total; i = next++) {
      const agentId = options.agents?.[i % options.agents.length];
      const body = {
        message: `load ${tag} turn ${i} from client ${c}`,
        ...(sessionId && !options.fresh ? { sessionId } : {}),
        ...(agentId ? { agentId } : {}),
      };
      let r = await http(url, '/v1/chat', body);
      // A connect that timed out on the shared machine marks the database down for a moment (503):
      // retried and counted, so a blip elsewhere does not void the run; the report shows the count.
      for (let retry = 0; r.status === 503 && r.text.includes('database_unavailable') && retry < 20; retry++) {
        databaseRetries[url.mode ?? '?'] = (databaseRetries[url.mode ?? '?'] ?? 0) + 1;
        await new Promise((ok) => setTimeout(ok, 500));
        r = await http(url, '/v1/chat', body);
      }
      if (r.status !== 200) throw new Error(`turn failed on the "${url.mode ?? '?'}" gateway: ${r.status} ${r.text}`);
      if (!options.fresh && !agentId) sessionId = (JSON.parse(r.text) as { sessionId: string }).sessionId;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? CONCURRENCY }, (_, c) => client(c)));
  return total / ((performance.now() - started) / 1000);
}

const seriesOf = (text: string, ours: boolean) =>
  text.split('\n').filter((l) => l && !l.startsWith('#') && (!ours || l.startsWith('nestclaw_') || l.startsWith('gen_ai_'))).length;

/** Series in `after` that `before` lacks (names and labels, without values): a new outcome or error code, never a session. */
const newSeries = (before: string, after: string) => {
  const keys = (text: string) =>
    new Set(
      text
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.slice(0, l.lastIndexOf(' '))),
    );
  const old = keys(before);
  return [...keys(after)].filter((k) => !old.has(k));
};

/** utime + stime of a process from /proc (ms): what a scrape costs the gateway, whatever else the machine runs. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const tracingEnv = (otlpUrl: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
  OTEL_SERVICE_NAME: 'nestclaw-bench',
  // Batch settings to try against the defaults in tracing.setup.ts (e.g. OTEL_BSP_SCHEDULE_DELAY=5000).
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('OTEL_BSP_'))),
});

/** The tracing pipeline's CPU per turn on its own (tracing-pipeline.process.ts), with tracing off and on. */
function pipelineCost(tracing: 'off' | 'on'): Promise<{ usPerTurn: number; bytesPerTurn: number }> {
  return new Promise((ok, fail) => {
    const child = fork(join(__dirname, 'tracing-pipeline.process.ts'), [], {
      execArgv: ['-r', join(ROOT, 'scripts/ts-register.js'), '-r', 'tsconfig-paths/register'],
      env: { PATH: process.env.PATH, TRACING: tracing, TURNS: QUICK ? '5000' : '20000' },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) =>
      code === 0 ? ok(JSON.parse(out.trim().split('\n').pop()!)) : fail(new Error(`pipeline bench exited ${code}`)),
    );
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
};

/**
 * Rounds of off / metrics / on, the order reversed every other round so a drift in the machine's
 * load does not favour one mode; per-round ratios (on/off of neighbouring measurements) and their
 * median are the figure that a shared machine disturbs least, next to the gateway's CPU per turn.
 */
async function throughput(base: Record<string, unknown>, otlp: Awaited<ReturnType<typeof startOtlpReceiver>>): Promise<Gateway> {
  const off = await startGateway('off', { ...base, observability: { metrics: { enabled: false } } }, {}, PROFILE);
  const metricsOnly = await startGateway('metrics', base);
  const on = await startGateway('on', base, tracingEnv(otlp.url), PROFILE);

  // Prometheus at 1 s instead of the usual 15 s: a pessimistic scrape load during the "on" rounds.
  const scraper = setInterval(() => {
    void http(on, '/metrics').catch(() => undefined);
    void http(metricsOnly, '/metrics').catch(() => undefined);
  }, 1000);
  cleanups.unshift(() => clearInterval(scraper));

  // Steady state, as a gateway that has been up for a while: V8 still compiles the turn's code for
  // the first ~2,500 turns (hundreds of optimisations per 500 turns, then ~20), and a gateway left
  // idle while the others warm up loses some of it again. So all three warm up in short interleaved
  // bursts, never idle for more than a few seconds, before anything is measured.
  process.stdout.write(`warm-up: ${WARM_CYCLES} × ${WARM_TURNS} turns each, interleaved…\n`);
  for (let c = 0; c < WARM_CYCLES; c++) for (const g of [off, metricsOnly, on]) await load(g, WARM_TURNS);
  const modes = { off, metrics: metricsOnly, on };
  type Mode = keyof typeof modes;
  const rates: Record<Mode, number[]> = { off: [], metrics: [], on: [] };
  const cpu: Record<Mode, number> = { off: 0, metrics: 0, on: 0 };
  if (PROFILE) await Promise.all([profiler(off, 'start'), profiler(on, 'start')]);
  for (let r = 0; r < ROUNDS; r++) {
    const order: Mode[] = r % 2 === 0 ? ['off', 'metrics', 'on'] : ['on', 'metrics', 'off'];
    for (const mode of order) {
      const before = cpuMs(modes[mode].pid);
      rates[mode].push(await load(modes[mode], ROUND_TURNS));
      cpu[mode] += cpuMs(modes[mode].pid) - before;
    }
    process.stdout.write(
      `round ${r + 1}/${ROUNDS}: off ${rates.off[r].toFixed(0)}, metrics ${rates.metrics[r].toFixed(0)}, metrics+tracing ${rates.on[r].toFixed(0)} turns/s\n`,
    );
  }
  if (PROFILE) await Promise.all([profiler(off, 'stop'), profiler(on, 'stop')]);
  clearInterval(scraper);
  const [pipelineOff, pipelineOn] = [await pipelineCost('off'), await pipelineCost('on')];
  const perTurn = (mode: Mode) => cpu[mode] / (ROUNDS * ROUND_TURNS);
  const ratios = (mode: Mode) => rates[mode].map((x, r) => x / rates.off[r]);
  const figures = (mode: Mode) =>
    `${(sum(rates[mode]) / ROUNDS).toFixed(1)} turns/s; ratio to off: total ${(sum(rates[mode]) / sum(rates.off)).toFixed(3)}, ` +
    `median of rounds ${median(ratios(mode)).toFixed(3)}, CPU ${(perTurn('off') / perTurn(mode)).toFixed(3)}`;
  const lines = [
    '',
    'nestclaw observability benchmark',
    `throughput, ${CONCURRENCY} concurrent clients, ${ROUNDS}×${ROUND_TURNS} turns each way, order reversed every other round (goal ≥ 0.95):`,
    `  off (no metrics, no tracing):              ${(sum(rates.off) / ROUNDS).toFixed(1)} turns/s`,
    `  metrics only (scraped 1/s):                ${figures('metrics')}`,
    `  on  (metrics scraped 1/s + OTLP export):   ${figures('on')}`,
    `  per-round on/off ratios: ${ratios('on')
      .map((x) => x.toFixed(2))
      .join(' ')}`,
    `  gateway CPU per turn: off ${perTurn('off').toFixed(2)} ms, metrics ${perTurn('metrics').toFixed(2)} ms, metrics+tracing ${perTurn('on').toFixed(2)} ms`,
    `  spans exported: ${otlp.stats.requests} OTLP requests, ${(otlp.stats.bytes / 1e6).toFixed(1)} MB`,
    `  a turn's trace on its own (7 spans, OTLP/HTTP JSON export, in-process): ${(pipelineOn.usPerTurn - pipelineOff.usPerTurn).toFixed(0)} µs CPU` +
      ` (${pipelineOn.usPerTurn.toFixed(0)} on − ${pipelineOff.usPerTurn.toFixed(0)} off), ${(pipelineOn.bytesPerTurn / 1024).toFixed(1)} KiB exported` +
      ` = ${((100 * (pipelineOn.usPerTurn - pipelineOff.usPerTurn)) / 1000 / perTurn('off')).toFixed(1)} % of an "off" turn's gateway CPU`,
    `  turns retried after a transient 503 database_unavailable: ${JSON.stringify(databaseRetries)}`,
    `  load average during the run: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
    ...(PROFILE ? [`  CPU profiles: bench-results/observability-{off,on}.cpuprofile`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return on;
}

/**
 * Series while SESSIONS new sessions chat, one turn each. First-seen bounded label values (an
 * outcome, a GC kind) appear within the first turns of any gateway: a warm-up of fresh sessions
 * runs before the "before" count, so what is left to see is growth with the number of sessions.
 */
async function series(on: Gateway): Promise<void> {
  await load(on, 200, { fresh: true, concurrency: SESSION_CONCURRENCY });
  const before = (await http(on, '/metrics')).text;
  const t0 = performance.now();
  const checkpoints: string[] = [];
  for (let done = 0; done < SESSIONS; done += SESSIONS / 5) {
    await load(on, SESSIONS / 5, { fresh: true, concurrency: SESSION_CONCURRENCY });
    const text = (await http(on, '/metrics')).text;
    checkpoints.push(`${done + SESSIONS / 5}: ${seriesOf(text, true)}/${seriesOf(text, false)}`);
  }
  const sessionsSec = (performance.now() - t0) / 1000;
  const after = (await http(on, '/metrics')).text;
  const lines = [
    `series during ${SESSIONS} turns in ${SESSIONS} new sessions (${(SESSIONS / sessionsSec).toFixed(0)} turns/s, ${SESSION_CONCURRENCY} clients, after 200 warm-up sessions):`,
    `  nestclaw/gen_ai series before ${seriesOf(before, true)}, after ${seriesOf(after, true)}; all series before ${seriesOf(before, false)}, after ${seriesOf(after, false)}`,
    `  ours/all after each fifth of the sessions: ${checkpoints.join(', ')}`,
    `  series that appeared: ${newSeries(before, after).join(', ') || 'none'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Scrape time with 20 models and 10 agents, every pair used. */
async function scrape(model: Record<string, unknown>): Promise<void> {
  const models = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`model-${i}`, { ...model, model: `fake-model-${i}` }]));
  const agents = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [
      `agent-${i}`,
      { model: `model-${i}`, fallback: Object.keys(models).filter((m) => m !== `model-${i}`), tools: [] },
    ]),
  );
  const wide = await startGateway('wide', { models, agents });
  await load(wide, 200, { agents: Object.keys(agents) });
  const scrapes: number[] = [];
  for (let i = 0; i < 20; i++) await http(wide, '/metrics');
  const cpuBefore = cpuMs(wide.pid);
  for (let i = 0; i < 100; i++) scrapes.push((await http(wide, '/metrics')).ms);
  const cpuPerScrape = (cpuMs(wide.pid) - cpuBefore) / 100;
  const wideText = (await http(wide, '/metrics')).text;
  const lines = [
    `/metrics with 20 models × 10 agents (${seriesOf(wideText, false)} series, ${(wideText.length / 1024).toFixed(0)} KiB):`,
    `  median ${quantile(scrapes, 0.5).toFixed(2)} ms, p95 ${quantile(scrapes, 0.95).toFixed(2)} ms wall (goal ≤ 10 ms); gateway CPU ${cpuPerScrape.toFixed(2)} ms per scrape`,
    `  load average: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const llmUrl = await startFakeLlm();
  const otlp = await startOtlpReceiver();
  const model = {
    provider: 'openai-compatible',
    base_url: llmUrl,
    api_key: 'sk-bench',
    model: 'fake-model',
    price: { input: 1, output: 2 },
  };
  const base = { models: { fake: model }, agents: { default: { tools: [] } } };
  if (SERIES_ONLY) return series(await startGateway('on', base, tracingEnv(otlp.url)));
  const on = await throughput(base, otlp);
  await series(on);
  await scrape(model);
}

async function cleanup(): Promise<void> {
  for (const c of cleanups) await Promise.resolve(c()).catch(() => undefined);
}

main()
  .then(cleanup)
  .catch(async (e: unknown) => {
    process.stderr.write(`observability bench failed: ${(e as Error)?.stack ?? String(e)}\n`);
    await cleanup();
    process.exit(1);
  });
