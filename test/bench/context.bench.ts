/**
 * Agent context figures (issue 12), from one run of the built gateway against the fake LLM:
 *   - prompt tokens of a "hello" request with the default bootstrap files, tools and skills
 *     (counted with the o200k tokenizer on the request the model received; target ≤ 2,000);
 *   - the cost of compaction over a 300-turn session on a model with a small context window:
 *     model calls and tokens spent summarising, against the tokens the main requests carried, and
 *     against what sending the whole history every turn would have cost.
 *   - the trivial-message classifier's precision and recall on the labelled set it ships with.
 *
 *   npm run build && node -r ./scripts/ts-register.js test/bench/context.bench.ts
 *
 * Uses PostgreSQL at NESTCLAW_BENCH_PG_URL (default 127.0.0.1:5432) when it answers, else the
 * embedded database. Results are printed and written to bench-results/context-<time>.json.
 */
import Module from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type * as CommonLib from '@nestclaw/common';
import type * as AgentLib from '@nestclaw/agent';
import type * as TestingLib from '@nestclaw/testing';
import type { FakeOpenAiServer as FakeServer } from '../fixtures/fake-openai.server';
import type * as SummarizerFixture from '../fixtures/fake-summarizer';
import type * as ProcessSupport from '../support/gateway-process';
import { tryScratchDatabase } from '../support/scratch-database';

const ROOT = resolve(__dirname, '../..');
const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolveFilename = loader._resolveFilename;
loader._resolveFilename = function (request: string, ...rest: unknown[]) {
  const lib = /^@nestclaw\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, lib ? join(ROOT, 'libs', lib[1], 'src') : request, ...rest);
};
/* eslint-disable @typescript-eslint/no-require-imports */
const { countChatTokens, countTokens } = require('@nestclaw/common') as typeof CommonLib;
const { classifyTrivial } = require('@nestclaw/agent') as typeof AgentLib;
const { LABELLED_MESSAGES: labelled } = require('@nestclaw/testing') as typeof TestingLib;
const { FakeOpenAiServer } = require('../fixtures/fake-openai.server') as { FakeOpenAiServer: typeof FakeServer };
const { fakeSummarizer, isSummaryRequest } = require('../fixtures/fake-summarizer') as typeof SummarizerFixture;
const { spawnGateway } = require('../support/gateway-process') as typeof ProcessSupport;
/* eslint-enable @typescript-eslint/no-require-imports */

const TURNS = Number(process.env.NESTCLAW_BENCH_TURNS ?? 300);
const WINDOW = 8_000;
const TOKEN = 'bench-token-0123456789';

async function scratchDatabase(): Promise<{ url?: string; drop(): Promise<void> }> {
  const admin = process.env.NESTCLAW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  return (await tryScratchDatabase(admin, 'nestclaw_bench_ctx')) ?? { drop: async () => undefined };
}

const requestTokens = (body: FakeServer['requests'][number]['body']) =>
  countChatTokens(
    body.messages.map((m) => ({ content: m.content ?? JSON.stringify(m.tool_calls ?? '') })),
    body.tools,
  );

async function main(): Promise<void> {
  const llm = new FakeOpenAiServer();
  await llm.start();
  llm.contextWindow = WINDOW;
  llm.respond = fakeSummarizer;
  const db = await scratchDatabase();
  const home = mkdtempSync(join(tmpdir(), 'nestclaw-bench-ctx-'));
  writeFileSync(
    join(home, 'config.yaml'),
    stringify({
      models: {
        fake: { provider: 'openai-compatible', base_url: llm.url, api_key: 'sk-bench', model: 'fake-model', context_window: WINDOW },
      },
    }),
  );
  const gw = await spawnGateway({
    PATH: process.env.PATH,
    NESTCLAW_HOME: home,
    NESTCLAW_TOKEN: TOKEN,
    ...(db.url ? { DATABASE_URL: db.url } : {}),
  });
  const chat = async (message: string, sessionId?: string) => {
    const res = await fetch(`${gw.url}/v1/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message, sessionId }),
    });
    if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { sessionId: string };
  };
  try {
    // 1. "hello"
    await chat('hello');
    const hello = llm.requests[llm.requests.length - 1].body;
    const helloTokens = requestTokens(hello);
    const systemTokens = countTokens(hello.messages[0].content ?? '');
    const toolTokens = countTokens(JSON.stringify(hello.tools ?? []));

    // 2. 300 turns
    const start = llm.requests.length;
    let sessionId: string | undefined;
    const t0 = performance.now();
    for (let i = 1; i <= TURNS; i++) {
      const text =
        i === 3
          ? 'FACT: my cat is called Mochi and she is allergic to chicken'
          : `Turn ${i}: some ordinary chat about the weather, lunch, a film we saw and the news, nothing that needs keeping for later.`;
      sessionId = (await chat(text, sessionId)).sessionId;
    }
    const ms = performance.now() - t0;
    // Baseline in the same minute (the machine is shared): one call straight to the fake model.
    const b0 = performance.now();
    for (let i = 0; i < 20; i++) {
      await fetch(`${llm.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
        body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: `baseline ${i}` }] }),
      }).then((r) => r.text());
    }
    const directMs = (performance.now() - b0) / 20;
    const sent = llm.requests.slice(start);
    const main = sent.filter((r) => !isSummaryRequest(r.body));
    const summaries = sent.filter((r) => isSummaryRequest(r.body));
    const mainTokens = main.map((r) => requestTokens(r.body));
    const summaryIn = summaries.reduce((n, r) => n + requestTokens(r.body), 0);
    const summaryOut = summaries.reduce((n, r) => {
      const out = fakeSummarizer(r.body);
      return n + (out && out.kind === 'text' ? countTokens(out.text) : 0);
    }, 0);
    // Without compaction every turn carries the whole history (the first turn's request + everything since).
    let uncompacted = 0;
    let history = 0;
    for (let i = 0; i < main.length; i++) {
      const body = main[i].body;
      const last = countTokens(body.messages[body.messages.length - 1].content ?? '') + 4;
      uncompacted += mainTokens[0] - (countTokens(main[0].body.messages.at(-1)!.content ?? '') + 4) + history + last;
      history += 2 * last;
    }
    const lastPrompt = main[main.length - 1].body.messages[0].content ?? '';

    // 3. classifier
    const positives = labelled.filter(([, l]) => l !== null);
    const predicted = labelled.filter(([t]) => classifyTrivial(t) !== undefined);
    const correct = predicted.filter(([t, l]) => classifyTrivial(t)?.kind === l);
    const results = {
      hello: { promptTokens: helloTokens, systemTokens, toolTokens, tools: hello.tools?.length ?? 0, target: 2000 },
      compaction: {
        turns: TURNS,
        contextWindow: WINDOW,
        budget: WINDOW * 0.75,
        mainCalls: main.length,
        summaryCalls: summaries.length,
        summaryInputTokens: summaryIn,
        summaryOutputTokens: summaryOut,
        mainInputTokens: mainTokens.reduce((a, b) => a + b, 0),
        maxRequestTokens: Math.max(...sent.map((r) => requestTokens(r.body))),
        uncompactedInputTokens: uncompacted,
        factFromTurn3AtTheEnd: lastPrompt.includes('Mochi'),
        msPerTurn: Math.round((ms / TURNS) * 10) / 10,
        directFakeCallMs: Math.round(directMs * 10) / 10,
      },
      classifier: {
        labelled: labelled.length,
        precision: correct.length / Math.max(1, predicted.length),
        recall: correct.length / positives.length,
        falsePositives: predicted.length - correct.length,
      },
    };
    const c = results.compaction;
    console.log('\nAgent context\n');
    console.log(
      `"hello" request: ${helloTokens} prompt tokens (system ${systemTokens}, ${results.hello.tools} tool definitions ${toolTokens}); target ≤ 2,000`,
    );
    console.log(`\n${TURNS}-turn session, context_window ${WINDOW} (compact above ${c.budget}):`);
    console.log(`  main calls ${c.mainCalls}, summarisation calls ${c.summaryCalls} (${(c.summaryCalls / TURNS).toFixed(3)} per turn)`);
    console.log(
      `  summarisation tokens: ${summaryIn} in + ${summaryOut} out = ${(((summaryIn + summaryOut) / c.mainInputTokens) * 100).toFixed(1)} % of the main requests' ${c.mainInputTokens} input tokens`,
    );
    console.log(
      `  largest request ${c.maxRequestTokens} tokens (window ${WINDOW}); the fact from turn 3 still in the last prompt: ${c.factFromTurn3AtTheEnd}`,
    );
    console.log(
      `  sending the whole history every turn instead would have cost ${uncompacted} input tokens (${(uncompacted / (c.mainInputTokens + summaryIn)).toFixed(1)}× as much) and overflowed the window`,
    );
    console.log(
      `  ${c.msPerTurn} ms per turn end to end (fake model, loopback); one call straight to the fake model: ${c.directFakeCallMs} ms`,
    );
    console.log(
      `\nclassifier on ${labelled.length} labelled messages: precision ${results.classifier.precision.toFixed(3)}, recall ${results.classifier.recall.toFixed(3)}, false positives ${results.classifier.falsePositives}`,
    );
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    const file = join(ROOT, 'bench-results', `context-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(results, null, 2));
    console.log(`\nwritten ${file}`);
  } finally {
    await gw.stop();
    await llm.stop();
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
