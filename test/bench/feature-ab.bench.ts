/**
 * Feature A/B in one run: several gateways on one database (each with its own NESTCLAW_HOME, so its
 * own derived memory index), differing only in configuration, measured interleaved against each
 * other and against the fake model, so load drift on a shared machine hits them alike.
 *
 *   node -r ./scripts/ts-register.js test/bench/feature-ab.bench.ts [--variants defaults,memory-off,...]
 *        [--seq 150] [--conc 600] [--stream 60] [--seed 2000] [--profile defaults]
 *
 * Variants: defaults (every default on), memory-off, transcripts-off, metrics-off, files-off, pool-20,
 * generic-plans (PostgreSQL's plan_cache_mode=force_generic_plan on the gateway's connections), baseline
 * (every default on, from the bundle at NESTCLAW_AB_BASELINE_MAIN: before/after in one run).
 * --profile NAME: CPU-profile that variant over the measured workloads (bench-results/ab-<name>-<ts>.cpuprofile).
 * Reports each variant's sequential p50 and paired added latency over the direct call, 10-client
 * throughput and first-token overhead, with `uptime` load averages at start and end.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Conversation,
  GATEWAY_ALLOCATOR_ENV,
  GATEWAY_NODE_FLAGS,
  HISTORY_LIMIT,
  ROOT,
  SESSION_TURNS,
  TOKEN,
  cleanups,
  concurrent,
  createDatabase,
  directTarget,
  gatewayTarget,
  profiler,
  round,
  runCleanups,
  startFakeLlm,
  startGatewayProcess,
  stopChild,
  summarize,
  type GatewayProcess,
  type HttpResult,
  type Target,
} from './bench-support';

const { values: argv } = parseArgs({
  args: process.argv.slice(2),
  options: {
    variants: { type: 'string', default: 'defaults,memory-off,transcripts-off,metrics-off' },
    seq: { type: 'string', default: '150' },
    conc: { type: 'string', default: '600' },
    stream: { type: 'string', default: '60' },
    seed: { type: 'string', default: '2000' },
    profile: { type: 'string' },
  },
  strict: true,
});

const VARIANTS: Record<string, Record<string, string>> = {
  defaults: {},
  'memory-off': { NESTCLAW_MEMORY__ENABLED: 'false' },
  'transcripts-off': { NESTCLAW_MEMORY__TRANSCRIPTS: 'false' },
  'metrics-off': { NESTCLAW_OBSERVABILITY__METRICS__ENABLED: 'false' },
  'files-off': { NESTCLAW_MEMORY__FILES__ENABLED: 'false' },
  'pool-20': { NESTCLAW_DATABASE__POOL_SIZE: '20' },
  /** PostgreSQL plans each prepared statement once (no custom plan per bind): what planning costs a turn. */
  'generic-plans': { DATABASE_URL_OPTIONS: '-c plan_cache_mode=force_generic_plan' },
  /** Every default on, run from another bundle (NESTCLAW_AB_BASELINE_MAIN, e.g. a copy of main's dist/apps/gateway/main.js). */
  baseline: {},
};

/** utime + stime of a process in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const names = argv.variants.split(',');
  const n = { seq: Number(argv.seq), conc: Number(argv.conc), stream: Number(argv.stream), seed: Number(argv.seed) };
  const log = (s: string) => process.stdout.write(`[ab ${new Date().toISOString().slice(11, 19)} load ${load()}] ${s}\n`);
  const llm = await startFakeLlm();
  const databaseUrl = await createDatabase(process.env.NESTCLAW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const config = {
    models: {
      fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-bench', model: 'fake-model', price: { input: 1, output: 2 } },
    },
    agents: { default: { history_limit: HISTORY_LIMIT } },
  };
  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NESTCLAW_TOKEN: TOKEN,
    NESTCLAW_LOG__LEVEL: 'warn',
    NESTCLAW_READY_LINE: '1',
    NODE_OPTIONS: process.env.NESTCLAW_BENCH_GATEWAY_NODE_OPTIONS ?? GATEWAY_NODE_FLAGS.join(' '),
    ...GATEWAY_ALLOCATOR_ENV,
    DATABASE_URL: databaseUrl,
  };
  const timestamp = new Date().toISOString().replace(/[:.]/g, '-');
  const start = async (name: string): Promise<GatewayProcess> => {
    const home = mkdtempSync(join(tmpdir(), `nestclaw-ab-${name}-`));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    writeFileSync(join(home, 'config.yaml'), JSON.stringify(config, null, 2));
    const profilePath = argv.profile === name ? join(ROOT, 'bench-results', `ab-${name}-${timestamp}.cpuprofile`) : undefined;
    if (profilePath) mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    const { DATABASE_URL_OPTIONS: pgOptions, ...variant } = VARIANTS[name];
    const url = new URL(databaseUrl);
    if (pgOptions) url.searchParams.set('options', pgOptions);
    const env = {
      ...baseEnv,
      ...variant,
      DATABASE_URL: url.toString(),
      NESTCLAW_HOME: home,
      ...(profilePath ? { NESTCLAW_BENCH_PROFILE: profilePath } : {}),
    };
    const main = name === 'baseline' ? process.env.NESTCLAW_AB_BASELINE_MAIN : undefined;
    const g = await startGatewayProcess(env, 30_000, profilePath ? join(__dirname, 'cpu-profile.preload.js') : undefined, main);
    cleanups.push(() => stopChild(g.child));
    if (profilePath) log(`profiling ${name} into ${profilePath}`);
    return g;
  };

  // Seed the memories (transcripts) through the first variant, then start the others (their index is built from the database).
  const first = await start(names[0]);
  const seedAgent = new Agent({ keepAlive: true, maxSockets: 16 });
  cleanups.push(() => seedAgent.destroy());
  const seedT = gatewayTarget(first.url, seedAgent);
  await seedT.turn(new Conversation(Infinity), 'hello', false);
  const hello = await llm.last();
  const { messages, stream: _s, ...rest } = hello.request!.body;
  const direct = directTarget(new URL(llm.url), new Agent({ keepAlive: true, maxSockets: 16 }), { system: messages[0], rest });
  await concurrent(seedT, n.seed, 10, SESSION_TURNS, 'seed', 120_000);
  log(`seeded ${n.seed} turns through ${names[0]}`);
  const gateways: Record<string, GatewayProcess> = { [names[0]]: first };
  for (const name of names.slice(1)) gateways[name] = await start(name);
  const targets: { name: string; t: Target; g?: GatewayProcess }[] = [
    { name: 'direct', t: direct },
    ...names.map((name) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 16 });
      cleanups.push(() => agent.destroy());
      return { name, t: gatewayTarget(gateways[name].url, agent), g: gateways[name] };
    }),
  ];
  // Warm-up: each gateway 1,000 turns at 10 clients + 50 sequential.
  for (const { name, t } of targets) {
    await concurrent(t, 1000, 10, SESSION_TURNS, `warm-${name}`, 60_000);
    await seqRound([{ name, t }], 50, false, 'warm');
  }
  const status = await (await fetch(new URL('/v1/memory/status', first.url), { headers: { authorization: `Bearer ${TOKEN}` } })).json();
  log(`warm-up done; memory status of ${names[0]}: ${JSON.stringify(status)}`);

  const prof = targets.find((x) => x.name === argv.profile)?.g;
  if (prof) await profiler(prof, 'start');

  const seq = await seqRound(targets, n.seq, false, 'seq');
  const d = seq.direct.map((r) => r.totalMs);
  for (const { name } of targets) {
    const g = seq[name].map((r) => r.totalMs);
    const s = summarize(g);
    const paired = summarize(g.map((x, i) => x - d[i]));
    log(
      `seq ${name.padEnd(16)} p50 ${s.p50.toFixed(2)} ms p95 ${s.p95.toFixed(2)}  added p50 ${round(s.p50 - summarize(d).p50, 2)} (paired p50 ${paired.p50.toFixed(2)})`,
    );
  }
  const conc: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  /** Model requests a turn (compaction's summaries included). */
  const calls: Record<string, number> = {};
  for (let rep = 0; rep < 2; rep++) {
    for (const { name, t, g } of rep === 0 ? targets : [...targets].reverse()) {
      const before = g ? cpuMs(g.pid) : 0;
      const requestsBefore = (await llm.last()).requests;
      const r = await concurrent(t, n.conc, 10, Infinity, `conc${rep}-${name}`, 60_000);
      conc[name] = (conc[name] ?? 0) + r.turnsPerSec / 2;
      if (g) cpu[name] = (cpu[name] ?? 0) + (cpuMs(g.pid) - before) / r.turns / 2;
      calls[name] = (calls[name] ?? 0) + ((await llm.last()).requests - requestsBefore) / r.turns / 2;
    }
  }
  for (const { name } of targets) {
    const perTurn = cpu[name] === undefined ? '' : `, gateway CPU ${cpu[name].toFixed(2)} ms a turn`;
    log(
      `conc ${name.padEnd(16)} ${round(conc[name], 1)} turns/s (mean of 2 reps)${perTurn}, ${calls[name].toFixed(2)} model requests a turn`,
    );
  }
  const str = await seqRound(targets, n.stream, true, 'stream');
  const dt = summarize(str.direct.map((r) => r.firstTokenMs!)).p50;
  for (const { name } of targets) {
    const s = summarize(str[name].map((r) => r.firstTokenMs!));
    log(`stream ${name.padEnd(16)} first token p50 ${s.p50.toFixed(2)} ms, overhead ${round(s.p50 - dt, 2)} ms`);
  }
  if (prof) await profiler(prof, 'stop');
  for (const g of Object.values(gateways)) await stopChild(g.child);
}

/** Round-robin over the targets, rotating which goes first, each with its own conversation. */
async function seqRound(
  targets: { name: string; t: Target }[],
  count: number,
  stream: boolean,
  tag: string,
): Promise<Record<string, HttpResult[]>> {
  const out: Record<string, HttpResult[]> = Object.fromEntries(targets.map((x) => [x.name, []]));
  const convs = targets.map(() => new Conversation(SESSION_TURNS));
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < targets.length; k++) {
      const j = (i + k) % targets.length;
      out[targets[j].name].push(await targets[j].t.turn(convs[j], `${tag} ${i}: hello`, stream));
    }
  }
  return out;
}

main()
  .catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  })
  .finally(() => runCleanups().then(() => process.exit()));
