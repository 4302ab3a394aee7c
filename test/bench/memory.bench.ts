/**
 * npm run bench:memory — issue 11's memory benchmark on this machine's PostgreSQL (embedded if none):
 * recall quality per mode and language on test/fixtures/memory/eval-set.ts, then scale figures at
 * 100k chunks (MEMORY_BENCH_CHUNKS): ingest rate, index lag, recall latency per mode, reindex time
 * with cached embeddings, RSS. Embeddings come from a deterministic local embedder (feature hashing
 * of the shared tokenizer's terms, each into 2 of 256 slots): it carries lexical signal only, no
 * paraphrase knowledge.
 * Options: --quality (the evaluation set only, with the queries whose rank hybrid changes);
 * MEMORY_BENCH_KEEP=1 keeps the database and index and prints the environment that reopens them.
 */
import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { execFileSync } from 'node:child_process';
import { randomUUID, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { ConfigModule, ConfigService } from '@nestclaw/config';
import { DatabaseService, DbModule } from '@nestclaw/db';
import {
  IndexWorker,
  MEMORY_EMBEDDER_OVERRIDE,
  MemoryModule,
  MemoryService,
  queryTerms,
  RecallMode,
  RecallService,
  ReindexService,
  TurnMemory,
} from '@nestclaw/memory';
import { buildEvalSet, Lang } from '../fixtures/memory/eval-set';
import { GATEWAY_NODE_FLAGS } from './bench-support';
import { tryScratchDatabase } from '../support/scratch-database';

const CHUNKS = Number(process.env.MEMORY_BENCH_CHUNKS ?? 100_000);
/** `--quality`: the evaluation set only, and the queries whose answer hybrid ranks differently from keyword. */
const QUALITY_ONLY = process.argv.includes('--quality');
const DIMS = 256;

/** Slots per feature: a collision in one slot moves only part of a feature's weight (one slot of 256 cancelled whole facts' matches). */
const SLOTS = Number(process.env.MEMORY_BENCH_SLOTS ?? 2);

function localEmbedding(text: string): number[] {
  const v = new Float64Array(DIMS);
  for (const f of queryTerms(text)) {
    const h = createHash('md5').update(f).digest();
    for (let s = 0; s < SLOTS; s++) v[h.readUInt16LE(s * 3) % DIMS] += h[s * 3 + 2] & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v) || 1;
  return Array.from(v, (x) => x / norm);
}

const embedder = {
  key: `local-hash:${DIMS}`,
  embedder: {
    kind: 'local',
    model: 'local-hash',
    embed: async (texts: string[]) => ({ vectors: texts.map(localEmbedding), inputTokens: 0, model: 'local-hash' }),
  },
};

@Global()
@Module({ providers: [{ provide: MEMORY_EMBEDDER_OVERRIDE, useValue: embedder }], exports: [MEMORY_EMBEDDER_OVERRIDE] })
class BenchEmbedderModule {}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x: number) => `${x.toFixed(2)} ms`;
/** RSS after a full GC (the bench runs with --expose-gc): what is live, not how far V8 let garbage pile up under a 2 GB heap limit. */
const mb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round(process.memoryUsage().rss / 1024 / 1024);
};
/** The glibc allocator settings this process runs with (`npm run bench:memory` sets those of `npm start`). */
const allocatorEnv = () =>
  ['MALLOC_ARENA_MAX', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_MMAP_THRESHOLD_'].map((k) => `${k}=${process.env[k] ?? 'unset'}`).join(' ');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
/** CPU seconds (user + system, all threads incl. LanceDB's) of this process since `from`: steadier than wall time on a shared machine. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1e6;
};

async function drained(db: DatabaseService, worker: IndexWorker): Promise<void> {
  for (;;) {
    await worker.drain();
    const { rows } = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM index_queue WHERE parked_at IS NULL`);
    if (rows[0].n === '0') return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** 1-based rank of the answering memory among the results, 0 when absent. */
const answerRank = (results: readonly { id: string }[], answerId: string | undefined) => results.findIndex((h) => h.id === answerId) + 1;

/** Queries whose answer moves between keyword and hybrid ranking (what a fusion change does). */
async function rankChanges(
  set: ReturnType<typeof buildEvalSet>,
  ids: Map<string, string>,
  recall: RecallService,
  log: (line: string) => void,
): Promise<void> {
  const ranked = async (text: string, answer: string, mode: RecallMode) => {
    const res = await recall.recall({ scope: 'owner', agentId: 'default', query: text, topK: 10, mode });
    return { rank: answerRank(res.results, ids.get(answer)), top: res.results[0]?.content ?? '' };
  };
  log('\nanswer rank, keyword → hybrid (0 = not in the top 10), and what ranks first in vector and hybrid:');
  for (const q of set.queries) {
    if (!q.answer) continue;
    const [k, h, v] = [
      await ranked(q.text, q.answer, 'keyword'),
      await ranked(q.text, q.answer, 'hybrid'),
      await ranked(q.text, q.answer, 'vector'),
    ];
    if (k.rank !== h.rank)
      log(`  ${k.rank} → ${h.rank}  ${q.lang}  ${q.text}  (vector rank ${v.rank}; vector first: ${v.top}; hybrid first: ${h.top})`);
  }
}

/** The memory module with its database, scheduler and the local embedder, as the gateway wires it. */
async function memoryApp(env: Record<string, string>): Promise<INestApplicationContext> {
  @Module({
    imports: [
      ScheduleModule.forRoot(),
      ConfigModule.forRoot({ env }),
      DbModule.forRoot({ migrate: true }),
      BenchEmbedderModule,
      MemoryModule,
    ],
  })
  class BenchModule {}
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: ['error', 'warn'] });
  await app.init();
  return app;
}

/**
 * `--steady-rss` (a child of the benchmark): a fresh process on the benchmark's database and index,
 * as a restarted gateway would be, reporting its RSS after opening the index and answering the
 * evaluation queries three times in each mode. Run on the small index and on the large one, the
 * difference is what the chunks cost a serving process, without the build's leftovers.
 */
async function steadyRss(): Promise<void> {
  const env = JSON.parse(process.env.MEMORY_BENCH_CHILD_ENV!) as Record<string, string>;
  const app = await memoryApp(env);
  await app.get(ReindexService).wait();
  const phases: Record<string, number> = { opened: mb() };
  const recall = app.get(RecallService);
  const set = buildEvalSet();
  const latency: Record<string, string> = {};
  for (const mode of ['keyword', 'vector', 'hybrid'] as RecallMode[]) {
    const times: number[] = [];
    for (let round = 0; round < 3; round++)
      for (const q of set.queries) {
        const t = performance.now();
        await recall.recall({ scope: 'owner', agentId: 'default', query: q.text, topK: 10, mode });
        times.push(performance.now() - t);
      }
    latency[mode] = `${pct(times, 50).toFixed(2)} / ${pct(times, 95).toFixed(2)}`;
    phases[mode] = mb();
  }
  // File-backed pages (mapped code and data files) are reclaimable page cache; anonymous ones are the process's own.
  (globalThis as { gc?: () => void }).gc?.();
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (key: string) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024);
  console.log(
    JSON.stringify({
      anonMb: kb('RssAnon'),
      fileMb: kb('RssFile'),
      rssMb: mb(),
      heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
      externalMb: Math.round(process.memoryUsage().external / 2 ** 20),
      heapTotalMb: Math.round(process.memoryUsage().heapTotal / 2 ** 20),
      phases,
      recallP50P95Ms: latency,
      reindex: app.get(ReindexService).progress.state,
    }),
  );
  await app.close();
}

interface RestingProcess {
  rssMb: number;
  anonMb: number;
  fileMb: number;
  heapUsedMb: number;
  phases: Record<string, number>;
  reindex: string;
}

/**
 * The serving process runs with `npm start`'s Node flags; past 200k chunks with a larger heap cap, as
 * the start-up warning (heap-headroom) tells an operator to set: the keyword index lives in the heap.
 */
const servingNodeFlags = () =>
  GATEWAY_NODE_FLAGS.map((f) => (CHUNKS > 200_000 && f.startsWith('--max-old-space-size=') ? '--max-old-space-size=2048' : f));

function childRss(env: Record<string, string>): RestingProcess {
  const out = execFileSync(
    process.execPath,
    [...servingNodeFlags(), '--expose-gc', '-r', './scripts/ts-register.js', '-r', 'tsconfig-paths/register', __filename, '--steady-rss'],
    { env: { ...process.env, MEMORY_BENCH_CHILD_ENV: JSON.stringify(env) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').pop()!);
}

async function main(): Promise<void> {
  const admin = process.env.NESTCLAW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const scratch = await tryScratchDatabase(admin, 'nestclaw_bench_memory');
  const url = scratch?.url;
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-membench-'));
  const env = {
    NESTCLAW_HOME: home,
    ...(url ? { DATABASE_URL: url } : {}),
    NESTCLAW_MEMORY__FILES__ENABLED: 'false',
    NESTCLAW_MEMORY__TRANSCRIPTS: 'false',
    NESTCLAW_MEMORY__WORKER__INTERVAL: '50',
    NESTCLAW_MEMORY__WORKER__BATCH: '2000',
    // Turns recall keyword-only (the turn-overhead figure); quality and latency pass their mode.
    NESTCLAW_MEMORY__RECALL__MODE: 'keyword',
  };
  const app = await memoryApp(env);
  const db = app.get(DatabaseService);
  const memory = app.get(MemoryService);
  const recall = app.get(RecallService);
  const reindex = app.get(ReindexService);
  const worker = app.get(IndexWorker);
  await reindex.wait();
  const out: string[] = [
    `# memory benchmark (${url ? 'PostgreSQL server' : 'embedded PostgreSQL'}, ${new Date().toISOString()}, load average ${load()})`,
  ];
  const log = (line: string) => {
    out.push(line);
    console.log(line);
  };

  // ---- quality on the evaluation set
  const set = buildEvalSet();
  const ids = new Map<string, string>();
  for (const f of set.facts) {
    ids.set(
      f.key,
      await memory.store({
        scope: 'owner',
        agentId: 'default',
        content: f.text,
        source: 'api',
        supersedes: f.supersedes ? ids.get(f.supersedes) : undefined,
      }),
    );
  }
  await drained(db, worker);
  const mrrOf = async (mode: RecallMode): Promise<number> => {
    let mrr = 0;
    let answerable = 0;
    for (const q of set.queries) {
      if (!q.answer) continue;
      answerable++;
      const res = await recall.recall({ scope: 'owner', agentId: 'default', query: q.text, topK: 10, mode });
      const rank = answerRank(res.results, ids.get(q.answer!));
      if (rank > 0) mrr += 1 / rank;
    }
    return mrr / answerable;
  };
  const quality = async (label: string) => {
    log(`\n## quality ${label}: ${set.facts.length} facts, ${set.queries.length} queries`);
    log('| mode | lang | Recall@5 | nDCG@10 | MRR | zero-hit (answerable) | zero-hit (words in fact) | abstentions with hits |');
    log('|---|---|---|---|---|---|---|---|');
    const mrrByMode: Record<string, number> = {};
    for (const mode of ['keyword', 'vector', 'hybrid'] as RecallMode[]) {
      for (const lang of ['zh', 'en', 'mixed', 'all'] as (Lang | 'all')[]) {
        const qs = set.queries.filter((q) => lang === 'all' || q.lang === lang);
        let r5 = 0,
          ndcg = 0,
          mrr = 0,
          zero = 0,
          zeroWords = 0,
          answerable = 0,
          words = 0,
          abst = 0,
          abstHits = 0;
        for (const q of qs) {
          const res = await recall.recall({ scope: 'owner', agentId: 'default', query: q.text, topK: 10, mode });
          if (!q.answer) {
            abst++;
            if (res.results.length) abstHits++;
            continue;
          }
          answerable++;
          const rank = answerRank(res.results, ids.get(q.answer!));
          if (rank > 0 && rank <= 5) r5++;
          if (rank > 0) {
            ndcg += 1 / Math.log2(rank + 1);
            mrr += 1 / rank;
          }
          if (res.results.length === 0) zero++;
          if (q.wordsInFact) {
            words++;
            if (rank === 0) zeroWords++;
          }
        }
        if (lang === 'all') mrrByMode[mode] = mrr / answerable;
        log(
          `| ${mode} | ${lang} | ${(r5 / answerable).toFixed(3)} | ${(ndcg / answerable).toFixed(3)} | ${(mrr / answerable).toFixed(3)} | ${(zero / answerable).toFixed(3)} | ${(zeroWords / Math.max(1, words)).toFixed(3)} (${words} q) | ${abstHits}/${abst} |`,
        );
      }
    }
    log(`hybrid MRR ${mrrByMode.hybrid.toFixed(3)} vs keyword ${mrrByMode.keyword.toFixed(3)} (target: hybrid ≥ keyword)`);
  };
  await quality('(empty index)');
  if (QUALITY_ONLY) {
    await rankChanges(set, ids, recall, log);
    await app.close();
    rmSync(home, { recursive: true, force: true });
    await scratch?.drop();
    return;
  }

  // ---- ingest rate and index lag (through MemoryService.store, the worker running)
  const words = [
    '部署',
    '会议',
    'invoice',
    'deploy',
    '预算',
    'backup',
    '客户',
    'latency',
    '合同',
    'release',
    '飞书',
    'kubernetes',
    '报销',
    'oncall',
    '测试',
  ];
  const synth = (i: number) =>
    `${words[i % 15]} ${words[(i * 7) % 15]} 记录 ${i}: ${words[(i * 11) % 15]} note number ${i} about ${words[(i * 13) % 15]} 第${i % 97}项`;
  const N_INGEST = 5000;
  let t0 = performance.now();
  const ingestCpu = process.cpuUsage();
  for (let i = 0; i < N_INGEST; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => memory.store({ scope: 'owner', agentId: 'default', content: synth(i + j), source: 'api' })),
    );
  }
  await drained(db, worker);
  const ingestRate = N_INGEST / ((performance.now() - t0) / 1000);
  log(
    `\n## ingest: ${N_INGEST} chunks stored and indexed at ${Math.round(ingestRate)} chunks/s wall, ${Math.round(N_INGEST / cpuSince(ingestCpu))} chunks per process-CPU-second (target ≥ 1000/s); load average ${load()}`,
  );
  const lags: number[] = [];
  const stuck: string[] = [];
  for (let i = 0; i < 100; i++) {
    const id = await memory.store({ scope: 'owner', agentId: 'default', content: synth(900_000 + i), source: 'api' });
    const t = performance.now();
    for (;;) {
      const { rows } = await db.pool.query(`SELECT 1 FROM index_queue WHERE memory_id = $1`, [id]);
      if (rows.length === 0) break;
      // A wedged worker must show up as a figure, not hang the benchmark.
      if (performance.now() - t > 10_000) {
        stuck.push(JSON.stringify({ intervals: app.get(SchedulerRegistry).getIntervals() }));
        await worker.drain();
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    lags.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  log(`index lag after commit: p50 ${ms(pct(lags, 50))}, p95 ${ms(pct(lags, 95))} (target p95 ≤ 1 s)`);
  if (stuck.length) log(`WARNING: ${stuck.length} entries waited > 10 s for the worker: ${stuck[0]}`);

  // ---- bulk load to CHUNKS, rebuild, latency
  // The same, measured in a fresh process: the small index now, the large one at the end.
  const smallChunks = Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM memory_chunks`)).rows[0].n);
  const restSmall = childRss(env);
  const rssBefore = mb();
  const heapBefore = process.memoryUsage();
  const have = Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM memory_chunks`)).rows[0].n);
  for (let start = have; start < CHUNKS; start += 5000) {
    const n = Math.min(5000, CHUNKS - start);
    const rows = Array.from({ length: n }, (_, j) => ({ id: randomUUID(), text: synth(start + j) }));
    const hashes = rows.map((r) => createHash('sha256').update(r.text).digest('hex'));
    await db.pool.query(
      `WITH m AS (INSERT INTO memories (id, scope, agent_id, content, source, content_hash)
                  SELECT x.id, 'owner', 'default', x.t, 'api', x.h FROM unnest($1::uuid[], $2::text[], $3::text[]) AS x(id, t, h) RETURNING id, content, content_hash)
       INSERT INTO memory_chunks (memory_id, seq, text, token_count, content_hash) SELECT id, 0, content, 20, content_hash FROM m`,
      [rows.map((r) => r.id), rows.map((r) => r.text), hashes],
    );
  }
  // A production database is analysed by autovacuum after a bulk change; do it now so plans are realistic.
  await db.pool.query('ANALYZE memories; ANALYZE memory_chunks; ANALYZE memory_embeddings');
  t0 = performance.now();
  let cpu = process.cpuUsage();
  reindex.start('benchmark: first build, embeddings computed');
  await reindex.wait();
  const firstBuild = (performance.now() - t0) / 1000;
  const firstCpu = cpuSince(cpu);
  t0 = performance.now();
  cpu = process.cpuUsage();
  reindex.start('benchmark: rebuild with cached embeddings');
  await reindex.wait();
  const cachedBuild = (performance.now() - t0) / 1000;
  const cachedCpu = cpuSince(cpu);
  log(
    `\n## ${CHUNKS} chunks: first build ${firstBuild.toFixed(1)} s (process CPU ${firstCpu.toFixed(1)} s), reindex with cached embeddings ${cachedBuild.toFixed(1)} s (process CPU ${cachedCpu.toFixed(1)} s; target ≤ 60 s at 100k); load average ${load()}`,
  );
  log(`reindex state: ${JSON.stringify(reindex.progress)}`);
  for (const mode of ['keyword', 'vector', 'hybrid'] as RecallMode[]) {
    const times: number[] = [];
    cpu = process.cpuUsage();
    for (let round = 0; round < 3; round++) {
      for (const q of set.queries) {
        const t = performance.now();
        await recall.recall({ scope: 'owner', agentId: 'default', query: q.text, topK: 10, mode });
        times.push(performance.now() - t);
      }
    }
    log(
      `recall ${mode} at ${CHUNKS}: p50 ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))}, p99 ${ms(pct(times, 99))}, process CPU ${ms((cpuSince(cpu) * 1000) / times.length)} per recall (target p95 ≤ ${CHUNKS > 100_000 ? '50 ms at 1M' : '10 ms at 100k'} chunks)`,
    );
  }

  // What memory adds to a turn: the agent's recall hook (keyword-only, as configured above); with memory off the hook returns at once.
  const turnMemory = app.get(TurnMemory);
  const hook: number[] = [];
  for (let round = 0; round < 3; round++)
    for (const q of set.queries) {
      const t = performance.now();
      await turnMemory.recallForTurn({ person: 'owner', agentId: 'default', message: q.text, history: [] });
      hook.push(performance.now() - t);
    }
  const config = app.get(ConfigService);
  config.get().memory.enabled = false;
  const off: number[] = [];
  for (const q of set.queries) {
    const t = performance.now();
    await turnMemory.recallForTurn({ person: 'owner', agentId: 'default', message: q.text, history: [] });
    off.push(performance.now() - t);
  }
  config.get().memory.enabled = true;
  log(
    `turn recall hook (keyword-only) at ${CHUNKS}: memory on p50 ${ms(pct(hook, 50))} / p95 ${ms(pct(hook, 95))}, memory off p50 ${ms(pct(off, 50))}: adds ${ms(pct(hook, 50) - pct(off, 50))} p50 to a turn (target ≤ 3 ms)`,
  );

  // Fusion weights: hybrid MRR against keyword-only at this scale, for the default and a few alternatives.
  const fusion = config.get().memory.fusion;
  const defaults = { ...fusion };
  const keywordMrr = await mrrOf('keyword');
  const sweep: string[] = [];
  for (const [kw, vw, cand] of [
    [1, 1, 50],
    [1, 0.5, 50],
    [1, 0.25, 50],
    [1, 1, 200],
    [defaults.keyword_weight, defaults.vector_weight, defaults.candidates],
  ]) {
    Object.assign(fusion, { keyword_weight: kw, vector_weight: vw, candidates: cand });
    sweep.push(`keyword ${kw} / vector ${vw} / ${cand} candidates: ${(await mrrOf('hybrid')).toFixed(3)}`);
  }
  Object.assign(fusion, defaults);
  log(`hybrid MRR by fusion weights at ${CHUNKS} (keyword-only ${keywordMrr.toFixed(3)}): ${sweep.join('; ')} (last = default)`);
  await quality(`(with ${CHUNKS} distractor chunks in the same scope)`);
  const rssAfter = mb();
  const mem = process.memoryUsage();
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  log(
    `\nRSS: ${rssBefore} MB before loading, ${rssAfter} MB with ${CHUNKS} chunks indexed and queried (+${rssAfter - rssBefore} MB; this process also ingested and rebuilt, so the target is judged on the serving process below), after a full GC each; of the increase: V8 heap used +${mib(mem.heapUsed - heapBefore.heapUsed)} MB (committed +${mib(mem.heapTotal - heapBefore.heapTotal)} MB), external (ArrayBuffers, native handles) +${mib(mem.external - heapBefore.external)} MB, the rest native (LanceDB, allocator) and V8 pages not yet returned; allocator ${allocatorEnv()}`,
  );

  // For finding what holds the heap: MEMORY_BENCH_HEAP_SNAPSHOT=<file>.
  if (process.env.MEMORY_BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.MEMORY_BENCH_HEAP_SNAPSHOT);
  await app.close();
  const restLoaded = childRss(env);
  log(
    `steady state (a fresh process opening the index and answering the queries): ${restSmall.rssMb} MB at ${smallChunks} chunks, ${restLoaded.rssMb} MB at ${CHUNKS}: +${restLoaded.rssMb - restSmall.rssMb} MB (target ≤ +150 MB; anonymous +${restLoaded.anonMb - restSmall.anonMb} MB, file-backed +${restLoaded.fileMb - restSmall.fileMb} MB; V8 heap used +${restLoaded.heapUsedMb - restSmall.heapUsedMb} MB; RSS after opening and after each mode: ${JSON.stringify(restSmall.phases)} → ${JSON.stringify(restLoaded.phases)}; reindex ${restSmall.reindex} / ${restLoaded.reindex}; allocator ${allocatorEnv()}; node ${servingNodeFlags().join(' ')})`,
  );
  if (process.env.MEMORY_BENCH_KEEP) {
    // For measuring the serving process again without rebuilding: MEMORY_BENCH_CHILD_ENV='<this>' … --steady-rss
    log(`kept the database and index: MEMORY_BENCH_CHILD_ENV='${JSON.stringify(env)}'`);
    return;
  }
  rmSync(home, { recursive: true, force: true });
  await scratch?.drop();
}

(process.argv.includes('--steady-rss') ? steadyRss() : main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
