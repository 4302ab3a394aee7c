/**
 * `npm run bench` (last part): the README's path on a machine without PostgreSQL. Runs `nestclaw
 * start` (bin/nestclaw.js with the Node flags of `npm start`, minus npm's rebuild) with no
 * DATABASE_URL on a fresh `$NESTCLAW_HOME`, twice:
 *   - first start: spawn → /health/ready answers 200 on an empty home (the embedded database is created);
 *   - second start: the same home again (the database is reopened);
 *   - total memory of the gateway and every process it started (the embedded server and its
 *     backends), 1 s after ready and again after 50 chat turns against a fake model: distinct
 *     physical pages (the target's measure), summed RSS (an upper bound) and summed PSS
 *     (test/bench/process-memory.ts says why they differ).
 * The same gateway on a fresh database of a PostgreSQL server ("server") is measured in the same
 * run, engines interleaved run by run, and the embedded figures are printed as ratios to it: the
 * machine is shared, so absolute times say little and the ratio is the comparable figure.
 * Each is run `--runs N` times (default 3, fresh home each time) and the median reported, against
 * the targets of issue 10 (first start ≤ 3 s, total memory ≤ 200 MB).
 * `--launchers before=/path/a/bin/nestclaw.js,after=bin/nestclaw.js` compares builds (each an install
 * folder with its own dist/) in the same run, interleaved like the engines.
 */
import { ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { GATEWAY_NODE_FLAGS } from './bench-support';
import { treeMemory, TreeMemory } from './process-memory';

const ROOT = resolve(__dirname, '../..');
const LAUNCHER = join(ROOT, 'bin/nestclaw.js');
const TOKEN = 'bench-token-0123456789abcdef';
const TARGETS = { firstStartMs: 3000, totalRssMb: 200 };

const { values: argv } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: 'string', default: '3' },
    turns: { type: 'string', default: '50' },
    /**
     * Comma-separated `database.embedded_engine` values to compare in the same run, plus `server`:
     * the same gateway on a fresh database of a PostgreSQL server (NESTCLAW_BENCH_PG_URL, default
     * postgres://postgres@127.0.0.1:5432/postgres), the reference (its RSS is the gateway's alone).
     */
    engines: { type: 'string', default: 'auto,pglite,server' },
    launchers: { type: 'string', default: '' },
    // An engine may end in `:on` or `:off` to force `database.synchronous_commit` (e.g. `auto:on,auto:off`, docs/adr/0001).
  },
  strict: false,
});
const RUNS = Number(argv.runs);
const TURNS = Number(argv.turns);
const ENGINES = String(argv.engines).split(',');
/** label → launcher; one unlabelled entry (the default) keeps the report as it was. */
const LAUNCHERS: [string, string][] = argv.launchers
  ? String(argv.launchers)
      .split(',')
      .map((l) => l.split('=') as [string, string])
      .map(([label, path]) => [label, resolve(path)])
  : [['', LAUNCHER]];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Started {
  child: ChildProcess;
  /** Everything the gateway printed (stdout, logs at warn and above, and stderr). */
  output(): string;
  url: string;
  ms: number;
}

function startGateway(env: NodeJS.ProcessEnv, launcher: string): Promise<Started> {
  const t0 = performance.now();
  // As `npm start` runs it (package.json); NESTCLAW_BENCH_GATEWAY_FLAGS replaces the Node flags to try others.
  const flags = process.env.NESTCLAW_BENCH_GATEWAY_FLAGS?.split(' ').filter(Boolean) ?? GATEWAY_NODE_FLAGS;
  const child = spawn(process.execPath, [...flags, launcher, 'start', '--port', '0'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
  return new Promise((ok, fail) => {
    let buffered = '';
    let url: string | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`not ready in 180 s:\n${output.join('')}`));
    }, 180_000);
    child.once('exit', (code) => fail(new Error(`gateway exited (${code}):\n${output.join('')}${buffered}`)));
    child.stdout!.on('data', (c: Buffer) => {
      buffered += c.toString();
      const m = /^NESTCLAW_READY (\S+)$/m.exec(buffered);
      if (!m || url) return;
      url = m[1];
      // Started = what a user's first request sees: /health/ready answers 200 (database up, migrations applied).
      void untilReady(url).then(() => {
        clearTimeout(timer);
        ok({ child, url: url!, ms: performance.now() - t0, output: () => output.join('') + buffered });
      }, fail);
    });
  });
}

async function untilReady(url: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/health/ready`).catch(() => undefined);
    if (res?.status === 200) return;
    await sleep(10);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

async function startFakeLlm(): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(join(__dirname, 'fake-llm.process.ts'), [], {
    execArgv: ['-r', join(ROOT, 'scripts/ts-register.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((ok) => child.once('message', (m: { url: string }) => ok(m.url)));
  child.on('message', () => undefined);
  return { url, child };
}

/**
 * n turns; returns how many got 503 database_unavailable and were retried (after 1 s, at most 3 times).
 * Seen on a machine at load ~25: pg's client-side query timeout fired on the first turn after a start
 * and Reachability failed requests fast for a moment. Counted and printed, not hidden.
 */
async function chatTurns(base: string, n: number): Promise<number> {
  let sessionId: string | undefined;
  let retried = 0;
  for (let i = 0; i < n; i++) {
    // A new session every 10 turns, as the main benchmark does.
    if (i % 10 === 0) sessionId = undefined;
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}/v1/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: `hello ${i} 你好`, ...(sessionId ? { sessionId } : {}) }),
      });
      if (res.status === 503 && attempt < 3) {
        retried++;
        await res.text();
        await sleep(1000);
        continue;
      }
      if (!res.ok) throw new Error(`turn ${i}: HTTP ${res.status} ${await res.text()}`);
      sessionId = ((await res.json()) as { sessionId: string }).sessionId;
      break;
    }
  }
  return retried;
}

const ADMIN_URL = process.env.NESTCLAW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const serverDatabases: string[] = [];

async function freshServerDatabase(): Promise<string> {
  const name = `nestclaw_bench_emb_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  serverDatabases.push(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropServerDatabases(): Promise<void> {
  if (!serverDatabases.length) return;
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  for (const name of serverDatabases) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  await client.end();
}

interface Row {
  first: number;
  second: number;
  idle: TreeMemory;
  afterTurns: TreeMemory;
  /** Wall time of the sequential chat turns, per turn. */
  turnMs: number;
}

const mb = (x: number | undefined) => (x === undefined ? 'n/a (needs root)' : `${x} MB`);
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || !b ? '' : `  (${(a / b).toFixed(2)} × server)`);

async function main(): Promise<void> {
  const llm = await startFakeLlm();
  const results = new Map<string, Row[]>();
  const loads: number[] = [];
  try {
    // Engines interleaved run by run, so a busy moment of the machine hits each alike.
    for (let run = 0; run < RUNS; run++) {
      for (const [label, launcher] of LAUNCHERS)
        for (const engine of ENGINES) {
          const key = label ? `${label} ${engine}` : engine;
          const rows = results.get(key) ?? [];
          results.set(key, rows);
          loads.push(loadavg()[0]);
          await measure(engine, run, llm.url, rows, launcher, key);
        }
    }
  } finally {
    llm.child.kill();
    await dropServerDatabases();
  }
  const verdict = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? '  ok' : '  MISSED');
  const summary = (rows: Row[]) => {
    const med = (f: (r: Row) => number | undefined) => {
      const xs = rows.map(f).filter((x): x is number => x !== undefined);
      return xs.length ? median(xs) : undefined;
    };
    return {
      first: Math.round(median(rows.map((r) => r.first))),
      second: Math.round(median(rows.map((r) => r.second))),
      idle: med((r) => r.idle.distinctMb),
      total: med((r) => r.afterTurns.distinctMb),
      rss: med((r) => r.afterTurns.rssMb),
      pss: med((r) => r.afterTurns.pssMb),
      gateway: med((r) => r.afterTurns.rootRssMb),
      database: med((r) => r.afterTurns.childrenDistinctMb),
      databaseRss: med((r) => r.afterTurns.childrenRssMb),
      turnMs: median(rows.map((r) => r.turnMs)),
    };
  };
  const serverOf = (key: string) => {
    const label = key.split(' ').slice(0, -1).join(' ');
    const rows = results.get(label ? `${label} server` : 'server');
    return rows ? summary(rows) : undefined;
  };
  process.stdout.write(
    `\nload average during the runs: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${cpus().length} cores\n`,
  );
  for (const [key, rows] of results) {
    const m = summary(rows);
    const engine = key.split(' ').pop()!;
    const vs = engine === 'server' ? undefined : serverOf(key);
    process.stdout.write(
      [
        '',
        engine === 'server'
          ? `${key.replace(/server$/, '')}PostgreSQL server (reference, median of ${rows.length} runs)`
          : `${key.replace(/\S+$/, '')}embedded database, engine ${engine} (median of ${rows.length} runs)`,
        `  first start (to /health/ready 200)   ${m.first} ms${ratio(m.first, vs?.first)}${engine === 'server' ? '' : `   target ≤ ${TARGETS.firstStartMs} ms${verdict(m.first <= TARGETS.firstStartMs)}`}`,
        `  second start                         ${m.second} ms${ratio(m.second, vs?.second)}`,
        `  total memory idle (distinct pages)   ${mb(m.idle)}${ratio(m.idle, vs?.idle)}`,
        `  total memory after ${TURNS} turns        ${mb(m.total)}${ratio(m.total, vs?.total)}${engine === 'server' ? '' : `   target ≤ ${TARGETS.totalRssMb} MB${verdict(m.total === undefined ? undefined : m.total <= TARGETS.totalRssMb)}`}`,
        // `nestclaw start` re-runs itself with the runtime settings (bin/runtime-settings.js): the root is that launcher.
        `    of which the launcher (RSS) ${mb(m.gateway)}, the gateway and its embedded database under it ${mb(m.database)} distinct (${mb(m.databaseRss)} summed RSS)`,
        `  summed RSS after ${TURNS} turns          ${mb(m.rss)}${ratio(m.rss, vs?.rss)}   (shared pages counted once per process: an upper bound)`,
        `  one sequential chat turn             ${m.turnMs.toFixed(2)} ms${ratio(m.turnMs, vs?.turnMs)}`,
        `  summed PSS after ${TURNS} turns          ${mb(m.pss)}   (shared pages split with processes outside the tree too)`,
        '',
      ].join('\n'),
    );
  }
}

async function measure(spec: string, run: number, llmUrl: string, rows: Row[], launcher: string, key: string): Promise<void> {
  const [engine, synchronousCommit] = spec.split(':');
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-bench-embedded-'));
  // NESTCLAW_BENCH_CONFIG: extra YAML lines, to see what a setting costs (e.g. `memory: { enabled: false }`).
  writeFileSync(join(home, 'config.yaml'), `log: { level: warn }\n${process.env.NESTCLAW_BENCH_CONFIG ?? ''}\n`);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NESTCLAW_HOME: home,
    NESTCLAW_TOKEN: TOKEN,
    NESTCLAW_READY_LINE: '1',
    OPENAI_BASE_URL: llmUrl,
    ...(engine === 'server' ? { DATABASE_URL: await freshServerDatabase() } : { NESTCLAW_DATABASE__EMBEDDED_ENGINE: engine }),
    ...(synchronousCommit ? { NESTCLAW_DATABASE__SYNCHRONOUS_COMMIT: synchronousCommit } : {}),
    OPENAI_API_KEY: 'sk-bench',
    NESTCLAW_MODEL: 'bench-model',
  };
  try {
    const first = await startGateway(env, launcher);
    await stop(first.child);
    const second = await startGateway(env, launcher);
    await sleep(1000);
    const idle = treeMemory(second.child.pid!);
    const t0 = performance.now();
    const retried = await chatTurns(second.url, TURNS).catch((e: Error) => {
      throw new Error(`${e.message}\ngateway output:\n${second.output().slice(-4000)}`);
    });
    const turnMs = (performance.now() - t0) / TURNS;
    await sleep(500);
    const afterTurns = treeMemory(second.child.pid!);
    await stop(second.child);
    rows.push({ first: first.ms, second: second.ms, idle, afterTurns, turnMs });
    process.stdout.write(
      `${key} run ${run + 1} (load ${loadavg()[0].toFixed(1)}): first start ${first.ms.toFixed(0)} ms, second ${second.ms.toFixed(0)} ms, ` +
        `${turnMs.toFixed(2)} ms per turn, memory idle ${mb(idle.distinctMb)}, after ${TURNS} turns ${mb(afterTurns.distinctMb)} distinct / ${afterTurns.rssMb} MB summed RSS ` +
        `(${afterTurns.perProcessRssMb.join(' + ')}) / ${afterTurns.pssMb} MB PSS` +
        (retried ? `; ${retried} turn(s) got 503 database_unavailable and were retried` : '') +
        '\n',
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`embedded bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
