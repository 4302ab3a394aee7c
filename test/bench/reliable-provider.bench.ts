/**
 * What the ReliableProvider adds to a healthy model call (issue 3: ≤ 0.5 ms at p50).
 *
 *   node -r ./scripts/ts-register.js test/bench/reliable-provider.bench.ts [--quick]
 *
 * Each workload calls the same model the same number of times two ways, interleaved in blocks so
 * drift hits both: straight through the adapter (`provider.chat`) and through
 * `ReliableProvider.chat` (chain lookup, budget and attempt signals, breaker permit, rate-limit
 * reservation, call record, idempotency key). Every request is distinct, so idempotency never
 * short-cuts a call. Workloads:
 *   in-process   a model that answers at once: the pure orchestration overhead
 *   http         OpenAiCompatibleProvider against the test suite's fake server on 127.0.0.1
 *   postgres     as in-process, plus the real PgIdempotencyStore lookup (one SELECT) on a scratch
 *                database (skipped when NESTCLAW_BENCH_PG_URL / 127.0.0.1:5432 does not answer)
 * Results are printed and written to bench-results/reliable-provider-<time>.json.
 */
import Module from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import type * as ProviderLib from '@nestclaw/provider';
import type * as ConfigLib from '@nestclaw/config';
import type * as TestingLib from '@nestclaw/testing';
import type { FakeOpenAiServer as FakeServer } from '../fixtures/fake-openai.server';

const ROOT = resolve(__dirname, '../..');

// ts-register has no path aliases: map `@nestclaw/<lib>` to its source entry before loading any lib.
const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolveFilename = loader._resolveFilename;
loader._resolveFilename = function (request: string, ...rest: unknown[]) {
  const lib = /^@nestclaw\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, lib ? join(ROOT, 'libs', lib[1], 'src') : request, ...rest);
};
/* eslint-disable @typescript-eslint/no-require-imports */
const provider = require('@nestclaw/provider') as typeof ProviderLib;
const { configSchema } = require('@nestclaw/config') as typeof ConfigLib;
const { MemoryIdempotencyStore } = require('@nestclaw/testing') as typeof TestingLib;
// The repository is the store's own collaborator, not part of the lib's public entry.
const { IdempotencyRepository } = require(join(ROOT, 'libs/provider/src/reliability/idempotency.repository')) as {
  IdempotencyRepository: new (db: unknown) => ConstructorParameters<typeof ProviderLib.PgIdempotencyStore>[0];
};
const { FakeOpenAiServer } = require('../fixtures/fake-openai.server') as { FakeOpenAiServer: typeof FakeServer };
/* eslint-enable @typescript-eslint/no-require-imports */

type ChatRequest = ProviderLib.ChatRequest;
type ModelProvider = ProviderLib.ModelProvider;

const QUICK = process.argv.includes('--quick');
const ITERATIONS = QUICK ? 4_000 : 20_000;
const HTTP_ITERATIONS = QUICK ? 1_000 : 4_000;
const BLOCK = 200;

/** A realistic turn: system prompt, 20 history messages, the tool list. */
function request(i: number): ChatRequest {
  const messages: ChatRequest['messages'] = [{ role: 'system', content: 'You are nestclaw, a helpful personal assistant. '.repeat(4) }];
  for (let k = 0; k < 10; k++) {
    messages.push({ role: 'user', content: `question ${k}: ${'lorem ipsum dolor sit amet '.repeat(6)}` });
    messages.push({ role: 'assistant', content: `answer ${k}: ${'consectetur adipiscing elit '.repeat(6)}` });
  }
  messages.push({ role: 'user', content: `the new message number ${i}` });
  const tools = ['current_time', 'shell', 'file_read', 'file_write', 'file_list', 'http_request', 'web_search'].map((name) => ({
    name,
    description: `the ${name} tool`,
    parameters: { type: 'object', properties: { input: { type: 'string' } } },
  }));
  return { messages, tools };
}

/** Answers at once, like a model with zero latency. */
class InstantModel implements ModelProvider {
  readonly kind = 'instant';
  readonly model = 'instant-model';
  chat(): Promise<ProviderLib.ChatResponse> {
    return Promise.resolve({
      content: 'ok',
      toolCalls: [],
      usage: { inputTokens: 900, outputTokens: 20, cachedInputTokens: 0 },
      finishReason: 'stop',
      model: this.model,
    });
  }
  // eslint-disable-next-line require-yield
  async *chatStream(): AsyncIterable<ProviderLib.ChatStreamEvent> {
    throw new Error('not benchmarked');
  }
  probe(): Promise<ProviderLib.ProbeResult> {
    return Promise.resolve({ reachable: true, keyRejected: false, latencyMs: 0 });
  }
}

function reliableFor(model: ModelProvider, store: ProviderLib.IdempotencyStore, idempotencyTtl: string) {
  const config = configSchema.parse({ providers: { primary: 'm', idempotency_ttl: idempotencyTtl } });
  const configService = { get: () => config } as unknown as ConstructorParameters<typeof provider.ReliableProvider>[1];
  const registered: ProviderLib.RegisteredModel = {
    name: 'm',
    kind: 'chat',
    provider: model,
    config: { provider: 'openai-compatible', model: model.model, kind: 'chat' },
    price: { input: 1, output: 2 },
    keySet: true,
    keyRequired: true,
  };
  const registry = { get: (n: string) => (n === 'm' ? registered : undefined) } as unknown as ProviderLib.ProviderRegistry;
  const clock = new provider.Clock();
  return new provider.ReliableProvider(
    registry,
    configService,
    new provider.AttemptAdmission(
      new provider.CircuitBreakerRegistry(configService, clock),
      new provider.RateLimitTracker(clock),
      clock,
      new provider.SpendBudget(),
    ),
    store,
  );
}

interface Stats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { n: s.length, p50: r(q(0.5)), p90: r(q(0.9)), p99: r(q(0.99)), mean: r(s.reduce((a, b) => a + b, 0) / s.length) };
}

/** Runs `direct` and `reliable` in alternating blocks; returns per-call milliseconds for each. */
async function measure(iterations: number, direct: (r: ChatRequest) => Promise<unknown>, reliable: (r: ChatRequest) => Promise<unknown>) {
  const requests = Array.from({ length: iterations * 2 + 2000 }, (_, i) => request(i));
  let next = 0;
  const time = async (f: (r: ChatRequest) => Promise<unknown>, out?: number[]) => {
    const r = requests[next++];
    const t = process.hrtime.bigint();
    await f(r);
    out?.push(Number(process.hrtime.bigint() - t) / 1e6);
  };
  for (let i = 0; i < 500; i++) {
    await time(direct);
    await time(reliable);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let done = 0; done < iterations; done += BLOCK) {
    for (let i = 0; i < BLOCK; i++) await time(direct, a);
    for (let i = 0; i < BLOCK; i++) await time(reliable, b);
  }
  const d = stats(a);
  const w = stats(b);
  return {
    direct: d,
    reliable: w,
    overhead: { p50: round(w.p50 - d.p50), p99: round(w.p99 - d.p99), mean: round(w.mean - d.mean) },
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

async function withScratchDatabase<T>(run: (pool: Pool) => Promise<T>): Promise<T | undefined> {
  const admin = process.env.NESTCLAW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `nestclaw_bench_${randomBytes(4).toString('hex')}`;
  const c = new Client({ connectionString: admin, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
  } catch {
    return undefined;
  }
  await c.query(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const pool = new Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => undefined); // the scratch database is dropped under idle connections
  try {
    await pool.query(readFileSync(join(ROOT, 'prisma/migrations/20261122010000_provider_reliability/migration.sql'), 'utf8'));
    return await run(pool);
  } finally {
    await pool.end();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = { node: process.version, iterations: ITERATIONS };

  const instant = new InstantModel();
  const bare = reliableFor(instant, new MemoryIdempotencyStore(), '0');
  results['in-process, idempotency off'] = await measure(
    ITERATIONS,
    () => instant.chat(),
    (r) => bare.chat(r),
  );
  const withKeys = reliableFor(instant, new MemoryIdempotencyStore(), '10m');
  results['in-process, idempotency in memory'] = await measure(
    ITERATIONS,
    () => instant.chat(),
    (r) => withKeys.chat(r),
  );

  const fake = new FakeOpenAiServer();
  await fake.start();
  fake.requests.push = () => 0; // keep the fixture from growing over thousands of requests
  const http = new provider.OpenAiCompatibleProvider({ baseUrl: fake.url, apiKey: 'k', model: 'fake-model' });
  const overHttp = reliableFor(http, new MemoryIdempotencyStore(), '10m');
  results['http fake server, idempotency in memory'] = await measure(
    HTTP_ITERATIONS,
    (r) => http.chat(r),
    (r) => overHttp.chat(r),
  );
  await fake.stop();

  const pg = await withScratchDatabase(async (pool) => {
    // Only the query helper is used: a scratch pool stands in for DatabaseService.
    const db = { query: (text: string, values?: unknown[]) => pool.query(text, values) };
    const store = new provider.PgIdempotencyStore(new IdempotencyRepository(db));
    const withPg = reliableFor(instant, store, '10m');
    const r = await measure(
      QUICK ? 1_000 : 4_000,
      () => instant.chat(),
      (req) => withPg.chat(req),
    );
    await store.beforeApplicationShutdown();
    return r;
  });
  results['in-process, idempotency in PostgreSQL'] = pg ?? 'skipped: no PostgreSQL at NESTCLAW_BENCH_PG_URL';

  console.log('\nReliableProvider overhead on a healthy call (milliseconds per call)\n');
  for (const [name, r] of Object.entries(results)) {
    if (typeof r !== 'object' || !r || !('overhead' in r)) {
      if (typeof r === 'string') console.log(`${name}: ${r}`);
      continue;
    }
    const { direct, reliable, overhead } = r as Awaited<ReturnType<typeof measure>>;
    console.log(`${name}`);
    console.log(`  direct    p50 ${direct.p50}  p90 ${direct.p90}  p99 ${direct.p99}  (n=${direct.n})`);
    console.log(`  reliable  p50 ${reliable.p50}  p90 ${reliable.p90}  p99 ${reliable.p99}`);
    console.log(`  overhead  p50 ${overhead.p50}  p99 ${overhead.p99}  mean ${overhead.mean}\n`);
  }
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `reliable-provider-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2));
  console.log(`written ${file}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
