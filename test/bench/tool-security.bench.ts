/**
 * Tool security figures (issue 9):
 *   policy    exec-policy evaluation time: ordinary commands, and hostile inputs that must be
 *             refused in ≤ 50 ms (a 10 KB, 1,000-segment pipeline; a 1,000-segment pipeline under
 *             the length limit; the longest allowed command), p50/p95/max over many runs
 *   quota     how far a run can grow its workspace past the quota before it is stopped, per
 *             executor that runs here (bubblewrap; native as root), writing as fast as it can
 *
 *   node -r ./scripts/ts-register.js test/bench/tool-security.bench.ts [--quick]
 *
 * Results are printed and written to bench-results/tool-security-<time>.json.
 */
import Module from 'node:module';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type * as ToolLib from '@nestclaw/tool';
import type * as ConfigLib from '@nestclaw/config';

const ROOT = resolve(__dirname, '../..');
const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolveFilename = loader._resolveFilename;
loader._resolveFilename = function (request: string, ...rest: unknown[]) {
  const lib = /^@nestclaw\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, lib ? join(ROOT, 'libs', lib[1], 'src') : request, ...rest);
};
/* eslint-disable @typescript-eslint/no-require-imports */
const tool = require('@nestclaw/tool') as typeof ToolLib;
const { configSchema } = require('@nestclaw/config') as typeof ConfigLib;
/* eslint-enable @typescript-eslint/no-require-imports */

const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 50 : 300;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const round = (x: number) => Math.round(x * 1000) / 1000;

async function timePolicy(name: string, command: string, expectAllowed: boolean) {
  const policy = { security: 'allowlist' as const, allow: [] };
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    const v = await tool.evaluateCommand(command, policy);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (v.allowed !== expectAllowed) throw new Error(`${name}: expected allowed=${expectAllowed}, got ${JSON.stringify(v)}`);
  }
  return { name, chars: command.length, p50_ms: round(pct(times, 50)), p95_ms: round(pct(times, 95)), max_ms: round(Math.max(...times)) };
}

async function policy() {
  const tenKb = ('wc -l | '.repeat(1250) + 'wc').slice(0, 10_240);
  const segs1000 = 'wc|'.repeat(999) + 'wc';
  const longest = `grep -c x ${'notes.txt '.repeat(400)}`.slice(0, 4000).trim();
  return [
    await timePolicy('ordinary: grep foo notes.txt | wc -l', 'grep foo notes.txt | wc -l', true),
    await timePolicy('ordinary: 5-stage cut|sort|uniq|sort|head', 'cut -d, -f1 data.csv | sort | uniq -c | sort -rn | head -5', true),
    await timePolicy('ordinary: jq filter', "jq -r '.items[] | select(.price > 10) | .name' data.json", true),
    await timePolicy('allowed: 16-stage pipeline (the limit)', Array(16).fill('sort -u').join(' | '), true),
    await timePolicy('allowed: one command, 400 operands', longest, true),
    await timePolicy('hostile: 10 KB, 1,000+ segments', tenKb, false),
    await timePolicy('hostile: 1,000 segments under the length limit', segs1000, false),
  ];
}

async function quota() {
  const MiB = 1024 * 1024;
  const quotaMb = 64;
  const results: Record<string, unknown>[] = [];
  const executors: [string, ToolLib.ToolExecutor][] = [['bubblewrap', new tool.BubblewrapExecutor()]];
  if (process.getuid?.() === 0) executors.push(['native', new tool.RestrictedNativeExecutor()]);
  for (const [name, executor] of executors) {
    const probe = await executor.probe();
    if (!probe.available) {
      results.push({ executor: name, skipped: probe.reason });
      continue;
    }
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'nestclaw-quota-bench-')));
    const ws = join(base, 'ws');
    mkdirSync(ws);
    if (process.getuid?.() === 0) chownSync(ws, 65534, 65534);
    if (process.getuid?.() === 0) chmodSync(base, 0o711); // the sandbox uid passes through, as under $NESTCLAW_HOME
    const shell = new tool.ShellTool(
      () =>
        configSchema.parse({ tools: { exec: { security: 'full', timeout: 120_000 }, limits: { workspace_mb: quotaMb, memory_mb: 256 } } })
          .tools,
    );
    const runtime = { sessionId: 's', turnId: 't', agentId: 'a', workspace: { hostPath: ws, access: 'rw' as const }, executor };
    const overs: number[] = [];
    for (const [label, command] of [
      ['many 8 MiB files', 'i=0; while [ $i -lt 1000 ]; do dd if=/dev/zero of=f$i bs=1M count=8 2>/dev/null; i=$((i+1)); done'],
      [
        'two parallel writers, 4 MiB files',
        'for w in a b; do (i=0; while [ $i -lt 1000 ]; do dd if=/dev/zero of=$w$i bs=1M count=4 2>/dev/null; i=$((i+1)); done) & done; wait',
      ],
      ['one big file', 'dd if=/dev/zero of=big bs=1M count=4096 2>&1'],
    ] as const) {
      rmSync(ws, { recursive: true, force: true });
      mkdirSync(ws);
      if (process.getuid?.() === 0) chownSync(ws, 65534, 65534);
      const t = Date.now();
      let outcome: string;
      try {
        outcome = (await shell.execute(runtime, { command }, new AbortController().signal)).split('\n').slice(-2).join(' ');
      } catch (e) {
        outcome = (e as Error).message.slice(0, 80);
      }
      const used = tool.measureUsage(ws).bytes;
      overs.push(Math.max(0, used - quotaMb * MiB));
      results.push({
        executor: name,
        workload: label,
        quota_mib: quotaMb,
        used_mib: round(used / MiB),
        overshoot_mib: round(Math.max(0, used - quotaMb * MiB) / MiB),
        ms: Date.now() - t,
        outcome,
      });
    }
    rmSync(base, { recursive: true, force: true });
  }
  return results;
}

async function main() {
  const policyResults = await policy();
  console.log('\nexec policy evaluation (ms)');
  console.table(policyResults);
  const quotaResults = await quota();
  console.log('\nworkspace quota overshoot');
  console.table(quotaResults);
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `tool-security-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ policy: policyResults, quota: quotaResults }, null, 2));
  console.log(`\nwritten to ${file}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
