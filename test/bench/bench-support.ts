/**
 * The processes and clients the benchmarks share: the fake LLM and the gateway as child processes
 * (the gateway from the webpack bundle, as users run it), a throw-away PostgreSQL database, an HTTP
 * client with timings, and the conversation loops. Used by gateway.bench.ts and soak.bench.ts (and the
 * gateway flags by observability.bench.ts).
 */
import { ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import type { FakeLlmLastReply } from './fake-llm.process';
import { createScratchDatabase } from '../support/scratch-database';

export const ROOT = resolve(__dirname, '../..');
export const GATEWAY_MAIN = join(ROOT, 'dist/apps/gateway/main.js');
export const TOKEN = 'bench-token-0123456789abcdef';
/** Written into config.yaml (it is also the default) so the direct requests replay the same window. */
export const HISTORY_LIMIT = 40;
/** Sequential, streaming and soak conversations start a new session every this many turns. */
export const SESSION_TURNS = 10;
/** glibc allocator settings the gateway runs with (`npm start`, the Dockerfile), so gateways here run as users run them. */
export const GATEWAY_ALLOCATOR_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '131072' };
/** Node flags `npm start` and the Dockerfile give the gateway (through NODE_OPTIONS). */
export const GATEWAY_NODE_FLAGS = ['--max-old-space-size=256', '--max-semi-space-size=8'];

// ───────────────────────────── processes and cleanup ─────────────────────────────

export const children = new Set<ChildProcess>();
export const cleanups: (() => Promise<void> | void)[] = [];

process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

export async function runCleanups(): Promise<void> {
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (e) {
      process.stderr.write(`cleanup: ${(e as Error).message}\n`);
    }
  }
}

export function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

export async function stopChild(child: ChildProcess, graceMs = 8000): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    if (!(await waitExit(child, graceMs))) {
      child.kill('SIGKILL');
      await waitExit(child, 2000);
    }
  }
  children.delete(child);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const now = () => performance.now();

/** VmRSS / VmHWM of a process in MB (Linux). */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rssMb: round(kb('VmRSS') / 1024, 1), hwmMb: round(kb('VmHWM') / 1024, 1) };
}

// ───────────────────────────── fake LLM ─────────────────────────────

export interface FakeLlm {
  url: string;
  child: ChildProcess;
  last(): Promise<FakeLlmLastReply>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const child = fork(join(__dirname, 'fake-llm.process.ts'), [], {
    execArgv: ['-r', join(ROOT, 'scripts/ts-register.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  cleanups.push(() => stopChild(child, 3000));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('fake LLM did not start within 15 s')), 15_000);
    child.once('exit', (code) => fail(new Error(`fake LLM exited with ${code}`)));
    child.on('message', (m: { type?: string; url?: string }) => {
      if (m?.type === 'ready' && m.url) {
        clearTimeout(timer);
        ok(m.url);
      }
    });
  });
  return {
    url,
    child,
    last: () =>
      new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error('fake LLM did not answer over IPC')), 5000);
        const onMessage = (m: FakeLlmLastReply) => {
          if (m?.type !== 'last') return;
          clearTimeout(timer);
          child.off('message', onMessage);
          ok(m);
        };
        child.on('message', onMessage);
        child.send({ type: 'last' });
      }),
  };
}

// ───────────────────────────── database ─────────────────────────────

export async function createDatabase(adminUrl: string): Promise<string> {
  const scratch = await createScratchDatabase(adminUrl, 'nestclaw_bench');
  cleanups.push(scratch.drop);
  const url = new URL(scratch.url);
  // Experiments: server settings for the gateway's connections, e.g. "-c synchronous_commit=off".
  if (process.env.NESTCLAW_BENCH_PG_OPTIONS) url.searchParams.set('options', process.env.NESTCLAW_BENCH_PG_OPTIONS);
  return url.toString();
}

export async function postgresSettings(url: string): Promise<Record<string, string>> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'synchronous_commit', 'fsync', 'wal_sync_method', 'shared_buffers')`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  } finally {
    await c.end();
  }
}

// ───────────────────────────── gateway process ─────────────────────────────

export interface GatewayProcess {
  child: ChildProcess;
  pid: number;
  url: URL;
  /** spawn → NESTCLAW_READY line. */
  startupMs: number;
  output: string[];
}

export async function startGatewayProcess(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  preload?: string,
  main = GATEWAY_MAIN,
): Promise<GatewayProcess> {
  const started = now();
  const child = spawn(process.execPath, [...(preload ? ['-r', preload] : []), main, '--port', '0'], {
    cwd: ROOT,
    env,
    // --profile: an IPC channel drives the profiler preload (cpu-profile.preload.js).
    stdio: preload ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const output: string[] = [];
  const keep = (stream: string) => (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) output.push(`[${stream}] ${line}`);
    if (output.length > 200) output.splice(0, output.length - 200);
  };
  child.stderr!.on('data', keep('stderr'));
  return new Promise<GatewayProcess>((ok, fail) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`gateway not ready within ${timeoutMs} ms:\n${output.slice(-20).join('\n')}`));
    }, timeoutMs);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      fail(new Error(`gateway exited (${code ?? signal}) before it was ready:\n${output.slice(-20).join('\n')}`));
    };
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk: Buffer) => {
      keep('stdout')(chunk);
      buffered += chunk.toString('utf8');
      const m = /^NESTCLAW_READY (\S+)$/m.exec(buffered);
      if (!m) return;
      const startupMs = now() - started;
      clearTimeout(timer);
      child.off('exit', onExit);
      buffered = '';
      child.stdout!.removeAllListeners('data');
      child.stdout!.on('data', keep('stdout'));
      ok({ child, pid: child.pid!, url: new URL(m[1]), startupMs, output });
    });
  });
}

/** Sends `{ profile: command }` to the profiler preload and waits for its answer. */
export function profiler(g: GatewayProcess, command: 'start' | 'stop'): Promise<void> {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the profiler did not answer "${command}"`)), 15_000);
    const onMessage = (m: { profile?: string }) => {
      if (m?.profile !== (command === 'start' ? 'started' : 'written')) return;
      clearTimeout(timer);
      g.child.off('message', onMessage);
      ok();
    };
    g.child.on('message', onMessage);
    g.child.send({ profile: command });
  });
}

// ───────────────────────────── HTTP client ─────────────────────────────

export interface HttpResult {
  status: number;
  body: string;
  totalMs: number;
  /** Streaming: ms until the first content token arrived. */
  firstTokenMs?: number;
}

export function post(
  agent: Agent,
  base: URL,
  path: string,
  payload: unknown,
  headers: Record<string, string>,
  firstToken?: RegExp,
): Promise<HttpResult> {
  const body = JSON.stringify(payload);
  return new Promise((ok, fail) => {
    const started = now();
    const req = httpRequest(
      {
        agent,
        host: base.hostname,
        port: base.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        let firstTokenMs: number | undefined;
        res.on('data', (chunk: string) => {
          text += chunk;
          if (firstToken && firstTokenMs === undefined && firstToken.test(text)) firstTokenMs = now() - started;
        });
        res.on('end', () => ok({ status: res.statusCode ?? 0, body: text, totalMs: now() - started, firstTokenMs }));
        res.on('error', fail);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${base.host}${path} within 30 s`)));
    req.on('error', fail);
    req.end(body);
  });
}

/** The first `event: token` of the gateway's SSE stream. */
export const GATEWAY_TOKEN_EVENT = /^event: token$/m;
/** The first chunk with non-empty delta content in an OpenAI stream (the role chunk has ""). */
export const DIRECT_TOKEN_CHUNK = /"delta":\{"content":"[^"]/;

// ───────────────────────────── conversations ─────────────────────────────

export type WireMessage = { role: string; content: string | null };

export interface Target {
  name: 'gateway' | 'direct';
  /** One turn of `conv`; resolves with timings, rejects on a wrong answer. */
  turn(conv: Conversation, message: string, stream: boolean): Promise<HttpResult>;
}

/** One client conversation; `rotateEvery` turns later it starts a fresh session. */
export class Conversation {
  sessionId?: string;
  history: WireMessage[] = [];
  turns = 0;

  constructor(private readonly rotateEvery: number) {}

  beforeTurn(): void {
    if (this.turns > 0 && this.turns % this.rotateEvery === 0) {
      this.sessionId = undefined;
      this.history = [];
    }
    this.turns++;
  }
}

export interface PromptTemplate {
  system: WireMessage;
  /** Everything in the gateway's model request except messages/stream (model, tools, …). */
  rest: Record<string, unknown>;
}

export function gatewayTarget(base: URL, agent: Agent): Target {
  const headers = { authorization: `Bearer ${TOKEN}` };
  return {
    name: 'gateway',
    async turn(conv, message, stream) {
      conv.beforeTurn();
      const payload = { message, ...(conv.sessionId ? { sessionId: conv.sessionId } : {}), ...(stream ? { stream: true } : {}) };
      const res = await post(agent, base, '/v1/chat', payload, headers, stream ? GATEWAY_TOKEN_EVENT : undefined);
      if (res.status !== 200) throw new Error(`gateway answered ${res.status}: ${res.body.slice(0, 300)}`);
      let sessionId: string | undefined;
      let reply: string | undefined;
      if (stream) {
        const done = /^event: done\ndata: (.*)$/m.exec(res.body);
        if (!done || res.firstTokenMs === undefined) throw new Error(`gateway stream without token/done events: ${res.body.slice(0, 300)}`);
        ({ sessionId, reply } = JSON.parse(done[1]) as { sessionId: string; reply: string });
      } else {
        ({ sessionId, reply } = JSON.parse(res.body) as { sessionId: string; reply: string });
      }
      if (reply !== `echo: ${message}`) throw new Error(`gateway replied ${JSON.stringify(reply)} to ${JSON.stringify(message)}`);
      conv.sessionId = sessionId;
      return res;
    },
  };
}

export function directTarget(llmUrl: URL, agent: Agent, template: PromptTemplate): Target {
  const path = `${llmUrl.pathname.replace(/\/$/, '')}/chat/completions`;
  const headers = { authorization: 'Bearer sk-bench' };
  return {
    name: 'direct',
    async turn(conv, message, stream) {
      conv.beforeTurn();
      const user = { role: 'user', content: message };
      const payload = {
        ...template.rest,
        messages: [template.system, ...conv.history.slice(-HISTORY_LIMIT), user],
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
      };
      const res = await post(agent, llmUrl, path, payload, headers, stream ? DIRECT_TOKEN_CHUNK : undefined);
      if (res.status !== 200) throw new Error(`fake LLM answered ${res.status}: ${res.body.slice(0, 300)}`);
      let reply = '';
      if (stream) {
        if (res.firstTokenMs === undefined) throw new Error(`direct stream without content: ${res.body.slice(0, 300)}`);
        for (const line of res.body.split('\n')) {
          if (!line.startsWith('data: {')) continue;
          const chunk = JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] };
          reply += chunk.choices[0]?.delta?.content ?? '';
        }
      } else {
        reply = (JSON.parse(res.body) as { choices: { message: { content: string } }[] }).choices[0].message.content;
      }
      if (reply !== `echo: ${message}`) throw new Error(`fake LLM replied ${JSON.stringify(reply)} to ${JSON.stringify(message)}`);
      conv.history.push(user, { role: 'assistant', content: reply });
      return res;
    },
  };
}

// ───────────────────────────── workloads ─────────────────────────────

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    mean: round(s.reduce((a, b) => a + b, 0) / (s.length || 1), 3),
    p50: round(percentile(s, 50), 3),
    p95: round(percentile(s, 95), 3),
    p99: round(percentile(s, 99), 3),
    min: round(s[0] ?? NaN, 3),
    max: round(s[s.length - 1] ?? NaN, 3),
  };
}

/** Sequential, gateway and direct turns interleaved (alternating which goes first) so drift hits both alike. */
export async function sequentialPaired(
  gateway: Target,
  direct: Target,
  count: number,
  stream: boolean,
  tag: string,
): Promise<{ gateway: HttpResult[]; direct: HttpResult[] }> {
  const out = { gateway: [] as HttpResult[], direct: [] as HttpResult[] };
  const gConv = new Conversation(SESSION_TURNS);
  const dConv = new Conversation(SESSION_TURNS);
  for (let i = 0; i < count; i++) {
    const message = `${tag} ${i}: hello`;
    if (i % 2 === 0) {
      out.gateway.push(await gateway.turn(gConv, message, stream));
      out.direct.push(await direct.turn(dConv, message, stream));
    } else {
      out.direct.push(await direct.turn(dConv, message, stream));
      out.gateway.push(await gateway.turn(gConv, message, stream));
    }
  }
  return out;
}

export interface ConcurrentRun {
  turns: number;
  wallMs: number;
  turnsPerSec: number;
  latency: Summary;
  /** Stopped early by its time limit. */
  truncated: boolean;
}

/** `clients` loops sharing one turn counter; `onTurn` sees the running total. */
export async function concurrent(
  target: Target,
  total: number,
  clients: number,
  rotateEvery: number,
  tag: string,
  limitMs: number,
  onTurn?: (completed: number) => void,
): Promise<ConcurrentRun> {
  let issued = 0;
  let completed = 0;
  const latencies: number[] = [];
  const started = now();
  const stopAt = started + limitMs;
  let truncated = false;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const conv = new Conversation(rotateEvery);
      while (issued < total) {
        if (now() > stopAt) {
          truncated = true;
          return;
        }
        const i = issued++;
        const res = await target.turn(conv, `${tag} c${c} #${i}: hello`, false);
        latencies.push(res.totalMs);
        completed++;
        onTurn?.(completed);
      }
    }),
  );
  const wallMs = now() - started;
  return {
    turns: completed,
    wallMs: round(wallMs, 1),
    turnsPerSec: round((completed / wallMs) * 1000, 1),
    latency: summarize(latencies),
    truncated,
  };
}
