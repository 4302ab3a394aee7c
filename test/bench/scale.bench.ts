/**
 * `node -r ./scripts/ts-register.js test/bench/scale.bench.ts`: turns per second through a real
 * HAProxy with 1 gateway replica and with 3 (test/support/ha-cluster.ts; balanced round robin per request,
 * and by session), in one run on one machine,
 * from 10 concurrent clients against the fake model (its own process, fake-llm.process.ts). Each
 * configuration gets a fresh scratch database and a warm-up that is not measured. Also the database
 * work per turn: transactions committed on the database (pg_stat_database.xact_commit) during the
 * measured run divided by its turns, each table's scans and row writes per turn, and the gateways' CPU
 * time per turn (/proc). Background work (each replica's 2 s heartbeat, remembering)
 * is included, so this is the deployment's cost per turn, not the turn's statement budget
 * (turn-statements.int-spec.ts holds that at ≤ 4). Figures go to docs/scaling.md.
 *
 * Both deployments run side by side after a warm-up (2,500 turns per replica), and their measured rounds
 * alternate, so load from elsewhere on the machine hits both alike.
 * Options: --turns N (measured turns per round, default 1000), --warmup N (per replica, default 2500),
 * --rounds N (default 3), --no-memory (memory.enabled: false: the turn path alone, without remembering and indexing).
 * Env: NESTCLAW_BENCH_PG_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Needs haproxy (apt-get install haproxy) and the built gateway (node scripts/build.js).
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { HaCluster, startHaCluster } from '../support/ha-cluster';
import { findHostTool } from '../support/host-tools';
import { createScratchDatabase } from '../support/scratch-database';
import { TOKEN, Target, cleanups, concurrent, gatewayTarget, runCleanups, SESSION_TURNS, startFakeLlm, sleep } from './bench-support';

const CLIENTS = 10;

/** Database counters of the scratch database: transactions committed, and per table its scans and row writes. */
async function counters(url: string): Promise<{ commits: number; tables: Map<string, { scans: number; writes: number }> }> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const db = await c.query<{ n: string }>('SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()');
    const t = await c.query<{ relname: string; scans: string; writes: string }>(
      `SELECT relname, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text AS scans,
              (n_tup_ins + n_tup_upd + n_tup_del)::text AS writes FROM pg_stat_user_tables`,
    );
    return {
      commits: Number(db.rows[0].n),
      tables: new Map(t.rows.map((r) => [r.relname, { scans: Number(r.scans), writes: Number(r.writes) }])),
    };
  } finally {
    await c.end();
  }
}

/** CPU seconds (user + system) the processes used so far, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

interface Deployment {
  replicas: number;
  /** `1`, `3 rr` (round robin per request) or `3 session` (a session's turns to one replica). */
  label: string;
  databaseUrl: string;
  target: Target;
  pids: () => number[];
}

async function deploy(
  replicas: number,
  balance: 'roundrobin' | 'session',
  llmUrl: string,
  haproxy: string,
  adminUrl: string,
  memory: boolean,
): Promise<Deployment> {
  const db = await createScratchDatabase(adminUrl, 'nestclaw_scale');
  cleanups.push(db.drop);
  const env = { NESTCLAW_TOKEN: TOKEN, ...(memory ? {} : { NESTCLAW_MEMORY__ENABLED: 'false' }) };
  const cluster: HaCluster = await startHaCluster({ databaseUrl: db.url, llmUrl, haproxy, replicas, env, balance });
  cleanups.push(() => cluster.stop());
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  cleanups.push(() => agent.destroy());
  const pids = () => cluster.replicas.map((r) => r!.child.pid!);
  const label = replicas === 1 ? '1' : `${replicas} ${balance === 'session' ? 'session' : 'rr'}`;
  return { replicas, label, databaseUrl: db.url, target: gatewayTarget(new URL(cluster.url), agent), pids };
}

async function measure(d: Deployment, turns: number, round: number) {
  // pg_stat_* are flushed by each backend about once a second: let earlier counts land first.
  await sleep(1500);
  const before = await counters(d.databaseUrl);
  const cpuBefore = cpuSeconds(d.pids());
  const run = await concurrent(d.target, turns, CLIENTS, SESSION_TURNS, `r${round}x${d.replicas}`, 300_000);
  const cpu = cpuSeconds(d.pids()) - cpuBefore;
  await sleep(1500);
  const after = await counters(d.databaseUrl);
  const perTurn = (n: number) => Math.round((n / run.turns) * 100) / 100;
  const tables = [...after.tables]
    .map(([name, a]) => {
      const b = before.tables.get(name) ?? { scans: 0, writes: 0 };
      return { name, scans: perTurn(a.scans - b.scans), writes: perTurn(a.writes - b.writes) };
    })
    .filter((t) => t.scans + t.writes >= 0.05)
    .sort((x, y) => y.scans + y.writes - (x.scans + x.writes));
  return {
    replicas: d.replicas,
    label: d.label,
    round,
    ...run,
    transactionsPerTurn: perTurn(after.commits - before.commits),
    gatewayCpuMsPerTurn: Math.round((cpu / run.turns) * 1e5) / 100,
    tables,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { turns: { type: 'string' }, warmup: { type: 'string' }, rounds: { type: 'string' }, 'no-memory': { type: 'boolean' } },
  });
  const memory = !values['no-memory'];
  const turns = Number(values.turns ?? 1000);
  const warmup = Number(values.warmup ?? 2500);
  const rounds = Number(values.rounds ?? 3);
  const haproxy = findHostTool('haproxy');
  if (!haproxy) throw new Error('haproxy is missing: apt-get install haproxy');
  const adminUrl = process.env.NESTCLAW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const llm = await startFakeLlm();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(
    `scale bench: ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${CLIENTS} clients, memory ${memory ? 'on' : 'off'}`,
  );
  // Both deployments run side by side (the idle one costs next to nothing), so their rounds can alternate:
  // load from elsewhere on the machine then hits both alike.
  const deployments = [
    await deploy(1, 'roundrobin', llm.url, haproxy, adminUrl, memory),
    await deploy(3, 'roundrobin', llm.url, haproxy, adminUrl, memory),
    await deploy(3, 'session', llm.url, haproxy, adminUrl, memory),
  ];
  for (const d of deployments) {
    // V8 optimises the turn's code over ~2,500 turns (ADR 0013): every replica gets its share of that before measuring.
    await concurrent(d.target, warmup * d.replicas, CLIENTS, SESSION_TURNS, `warm${d.replicas}`, 600_000);
  }
  const results = [];
  for (let round = 1; round <= rounds; round++) {
    for (const d of round % 2 ? deployments : [...deployments].reverse()) {
      const r = await measure(d, turns, round);
      results.push(r);
      say(
        `round ${round}, ${r.label} replica(s): ${r.turns} turns in ${r.wallMs} ms = ${r.turnsPerSec} turns/s; ` +
          `latency p50 ${r.latency.p50} ms p95 ${r.latency.p95} ms; ${r.transactionsPerTurn} transactions/turn; ` +
          `gateway CPU ${r.gatewayCpuMsPerTurn} ms/turn${r.truncated ? ' (TRUNCATED)' : ''}`,
      );
      say(`  per turn (scans/row writes): ${r.tables.map((t) => `${t.name} ${t.scans}/${t.writes}`).join(', ')}`);
    }
  }
  for (const label of deployments.map((d) => d.label)) {
    const mine = results.filter((r) => r.label === label);
    say(
      `${label} replica(s), median of ${mine.length}: ${median(mine.map((r) => r.turnsPerSec))} turns/s, ` +
        `p50 ${median(mine.map((r) => r.latency.p50))} ms, ${median(mine.map((r) => r.transactionsPerTurn))} transactions/turn, ` +
        `gateway CPU ${median(mine.map((r) => r.gatewayCpuMsPerTurn))} ms/turn`,
    );
  }
  say(
    `load at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(() => void runCleanups());
