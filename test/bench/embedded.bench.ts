/**
 * `npm run bench` (last part): the README's path on a machine without PostgreSQL. Starts the built
 * gateway with the Node flags `npm start` uses (dist/apps/gateway/main.js)
 * with no DATABASE_URL on a fresh `$NESTCLAW_HOME`, twice:
 *   - first start: spawn → NESTCLAW_READY on an empty home (the embedded database is created);
 *   - second start: the same home again (the database is reopened);
 *   - total RSS: VmRSS summed over the gateway and every process it started (the embedded database
 *     server runs in a child), read 1 s after ready, once idle, and again after 50 chat turns
 *     against a fake model (the database has then done real work).
 * Each is run `--runs N` times (default 3, fresh home each time) and the median reported, against
 * the targets of issue 10 (first start ≤ 3 s, total RSS ≤ 200 MB).
 */
import { ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';

const ROOT = resolve(__dirname, '../..');
const GATEWAY_MAIN = join(ROOT, 'dist/apps/gateway/main.js');
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
  },
  strict: false,
});
const RUNS = Number(argv.runs);
const TURNS = Number(argv.turns);
const ENGINES = String(argv.engines).split(',');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number) => Math.round(x * 10) / 10;

/** The pid and all its descendants (from /proc/<pid>/stat's ppid field). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // comm may contain spaces and parentheses: fields resume after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // exited meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Proportional set size: shared pages (the postgres binary, shared buffers) split between the processes using them. */
function pssMb(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** RSS summed over the tree (a page shared by n processes counts n times), and PSS summed (counts it once). */
function treeRss(root: number): { totalMb: number; pssMb: number; perProcess: { pid: number; mb: number }[] } {
  const pids = processTree(root);
  const perProcess = pids.map((pid) => ({ pid, mb: round(rssMb(pid)) }));
  return {
    totalMb: round(perProcess.reduce((a, p) => a + p.mb, 0)),
    pssMb: round(pids.reduce((a, pid) => a + pssMb(pid), 0)),
    perProcess,
  };
}

interface Started {
  child: ChildProcess;
  url: string;
  ms: number;
}

function startGateway(env: NodeJS.ProcessEnv): Promise<Started> {
  const t0 = performance.now();
  // As `npm start` runs it (package.json); NESTCLAW_BENCH_GATEWAY_FLAGS replaces the Node flags to try others.
  const flags = (process.env.NESTCLAW_BENCH_GATEWAY_FLAGS ?? '--max-old-space-size=256 --max-semi-space-size=1').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, GATEWAY_MAIN, '--port', '0'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
  return new Promise((ok, fail) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`not ready in 180 s:\n${output.join('')}`));
    }, 180_000);
    child.once('exit', (code) => fail(new Error(`gateway exited (${code}):\n${output.join('')}${buffered}`)));
    child.stdout!.on('data', (c: Buffer) => {
      buffered += c.toString();
      const m = /^NESTCLAW_READY (\S+)$/m.exec(buffered);
      if (!m) return;
      clearTimeout(timer);
      ok({ child, url: m[1], ms: performance.now() - t0 });
    });
  });
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

async function chatTurns(base: string, n: number): Promise<void> {
  let sessionId: string | undefined;
  for (let i = 0; i < n; i++) {
    // A new session every 10 turns, as the main benchmark does.
    if (i % 10 === 0) sessionId = undefined;
    const res = await fetch(`${base}/v1/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: `hello ${i} 你好`, ...(sessionId ? { sessionId } : {}) }),
    });
    if (!res.ok) throw new Error(`turn ${i}: HTTP ${res.status} ${await res.text()}`);
    sessionId = ((await res.json()) as { sessionId: string }).sessionId;
  }
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
  idleMb: number;
  afterTurnsMb: number;
  afterTurnsPssMb: number;
  perProcess: string;
}

async function main(): Promise<void> {
  const llm = await startFakeLlm();
  const results = new Map<string, Row[]>();
  try {
    // Engines interleaved run by run, so a busy moment of the machine hits each alike.
    for (let run = 0; run < RUNS; run++) {
      for (const engine of ENGINES) {
        const rows = results.get(engine) ?? [];
        results.set(engine, rows);
        await measure(engine, run, llm.url, rows);
      }
    }
  } finally {
    llm.child.kill();
    await dropServerDatabases();
  }
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  for (const [engine, rows] of results) {
    const m = {
      firstStartMs: Math.round(median(rows.map((r) => r.first))),
      secondStartMs: Math.round(median(rows.map((r) => r.second))),
      idleRssMb: median(rows.map((r) => r.idleMb)),
      totalRssMb: median(rows.map((r) => r.afterTurnsMb)),
      totalPssMb: median(rows.map((r) => r.afterTurnsPssMb)),
    };
    process.stdout.write(
      [
        '',
        `embedded database, engine ${engine} (median of ${rows.length} runs)`,
        `  first start              ${m.firstStartMs} ms   target ≤ ${TARGETS.firstStartMs} ms   ${verdict(m.firstStartMs <= TARGETS.firstStartMs)}`,
        `  second start             ${m.secondStartMs} ms`,
        `  total RSS idle           ${m.idleRssMb} MB`,
        `  total RSS after ${TURNS} turns ${m.totalRssMb} MB   target ≤ ${TARGETS.totalRssMb} MB   ${verdict(m.totalRssMb <= TARGETS.totalRssMb)}`,
        `  total PSS after ${TURNS} turns ${m.totalPssMb} MB   (shared pages counted once)`,
        '',
      ].join('\n'),
    );
  }
}

async function measure(engine: string, run: number, llmUrl: string, rows: Row[]): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-bench-embedded-'));
  writeFileSync(join(home, 'config.yaml'), 'log: { level: warn }\n');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NESTCLAW_HOME: home,
    NESTCLAW_TOKEN: TOKEN,
    NESTCLAW_READY_LINE: '1',
    OPENAI_BASE_URL: llmUrl,
    ...(engine === 'server' ? { DATABASE_URL: await freshServerDatabase() } : { NESTCLAW_DATABASE__EMBEDDED_ENGINE: engine }),
    OPENAI_API_KEY: 'sk-bench',
    NESTCLAW_MODEL: 'bench-model',
  };
  try {
    const first = await startGateway(env);
    await stop(first.child);
    const second = await startGateway(env);
    await sleep(1000);
    const idle = treeRss(second.child.pid!);
    await chatTurns(second.url, TURNS);
    await sleep(500);
    const after = treeRss(second.child.pid!);
    await stop(second.child);
    rows.push({
      first: first.ms,
      second: second.ms,
      idleMb: idle.totalMb,
      afterTurnsMb: after.totalMb,
      afterTurnsPssMb: after.pssMb,
      perProcess: after.perProcess.map((p) => `${p.mb}`).join(' + '),
    });
    process.stdout.write(
      `${engine} run ${run + 1}: first start ${first.ms.toFixed(0)} ms, second ${second.ms.toFixed(0)} ms, total RSS idle ${idle.totalMb} MB, after ${TURNS} turns ${after.totalMb} MB RSS / ${after.pssMb} MB PSS (${rows.at(-1)!.perProcess})\n`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`embedded bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
