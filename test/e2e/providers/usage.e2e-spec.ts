import { DatabaseService } from '@nestclaw/db';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { Harness, startHarness } from '../../support/gateway-harness';
import { readSse } from '../../support/sse';
import { chat, ChatBody, openAiModel, startFakes } from './chain-fixtures';

interface Totals {
  calls: number;
  billedCalls: number;
  failedCalls: number;
  cachedCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}
interface Report {
  from: string;
  to: string;
  groupBy: string;
  totals: Totals;
  groups: (Totals & { key: string })[];
}

const cents = (usd: number) => Math.round(usd * 100);

describe('GET /v1/usage', () => {
  let h: Harness;
  let primary: FakeOpenAiServer;
  let backup: FakeOpenAiServer;
  const replies: ChatBody[] = [];

  beforeAll(async () => {
    [primary, backup] = await startFakes(2);
    h = await startHarness({
      config: {
        models: {
          primary: openAiModel(primary, 'primary-model', { price: { input: 2.5, output: 10 } }),
          backup: openAiModel(backup, 'backup-model', { price: { input: 0.27, output: 1.1 } }),
        },
        providers: { primary: 'primary', fallback: ['backup'], retry: { base_delay: '10ms' }, circuit_breaker: { threshold: 100 } },
      },
    });
    // A mix: plain turns, a retried-then-fallen-over turn, a tool round trip, a stream, a replay.
    primary.enqueue({ kind: 'error', status: 503 });
    for (const m of ['one', 'two', 'two', 'three [tool:current_time {"timezone":"UTC"}]']) replies.push((await chat(h, m)).body);
    primary.enqueue({ kind: 'error', status: 500 }, { kind: 'error', status: 500 }, { kind: 'error', status: 500 });
    replies.push((await chat(h, 'four')).body);
    const events = await readSse(await h.api('/v1/chat', { json: { message: 'five', stream: true } }));
    replies.push(JSON.parse(events[events.length - 1].data) as ChatBody);
  });
  afterAll(async () => {
    await h.stop();
    await Promise.all([primary.stop(), backup.stop()]);
  });

  const ledger = async () => {
    const { rows } = await h.gateway.app
      .get(DatabaseService)
      .pool.query<{ n: string; cost: string; input: string; output: string }>(
        `SELECT count(*) AS n, sum(cost_usd)::text AS cost, sum(input_tokens) AS input, sum(output_tokens) AS output FROM llm_calls`,
      );
    return {
      calls: Number(rows[0].n),
      costUsd: Number(rows[0].cost),
      inputTokens: Number(rows[0].input),
      outputTokens: Number(rows[0].output),
    };
  };

  const usage = async (query: string) => {
    const res = await h.api(`/v1/usage${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Report;
  };

  it('returns totals equal to the sum of recorded calls, to the cent', async () => {
    const report = await usage('?groupBy=day');
    const sum = await ledger();
    expect(report.totals).toMatchObject({ calls: sum.calls, inputTokens: sum.inputTokens, outputTokens: sum.outputTokens });
    expect(cents(report.totals.costUsd)).toBe(cents(sum.costUsd));
    // and in fact to the ledger's full precision (1e-8 USD)
    expect(report.totals.costUsd).toBeCloseTo(sum.costUsd, 8);
    expect(report.totals.costUsd).toBeGreaterThan(0);
    expect(report.totals).toMatchObject({ failedCalls: 4, cachedCalls: 1 });
  });

  it('equals the sum of usage.costUsd the chat responses reported, each being the sum over its attempts', async () => {
    const reported = replies.reduce((a, r) => a + r.usage.costUsd, 0);
    const report = await usage('');
    expect(report.totals.costUsd).toBeCloseTo(reported, 8);
  });

  it.each(['day', 'month', 'model', 'session'])('groups by %s with group sums equal to the totals', async (groupBy) => {
    const report = await usage(`?groupBy=${groupBy}`);
    expect(report.groupBy).toBe(groupBy);
    const sum = (f: (t: Totals) => number) => report.groups.reduce((a, g) => a + f(g), 0);
    expect(sum((g) => g.calls)).toBe(report.totals.calls);
    expect(sum((g) => g.costUsd)).toBeCloseTo(report.totals.costUsd, 8);
    if (groupBy === 'model') {
      expect(report.groups.map((g) => g.key).sort()).toEqual(['openai-compatible/backup-model', 'openai-compatible/primary-model']);
    }
    if (groupBy === 'session') expect(report.groups).toHaveLength(6);
    if (groupBy === 'day') expect(report.groups[0].key).toBe(new Date().toISOString().slice(0, 10));
  });

  it('counts only calls inside [from, to)', async () => {
    const report = await usage('?from=2000-01-01&to=2000-01-31');
    expect(report.totals).toMatchObject({ calls: 0, costUsd: 0 });
    expect(report.groups).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await usage(`?from=${today}&to=${today}`)).totals.calls).toBe((await ledger()).calls);
  });

  it.each([
    ['?groupBy=week', 'groupBy'],
    ['?from=yesterday', 'from'],
    ['?to=2026-13-45', 'to'],
    ['?from=2026-02-01&to=2026-01-01', 'from'],
    ['?group=day', 'group'],
  ])('answers 400 naming the field for %s', async (query, field) => {
    const res = await h.api(`/v1/usage${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain(field);
  });

  it('needs the bearer token', async () => {
    const res = await fetch(`${h.gateway.url}/v1/usage`);
    expect(res.status).toBe(401);
  });
});
