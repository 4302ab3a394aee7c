import { Harness, startHarness } from '../../support/gateway-harness';

const BUDGET_USD = 0.3;
const TURNS = 10;
const TOOL_STEPS = 4;

/**
 * A budget holds under concurrency: each model call reserves its worst-case cost before it leaves,
 * so turns started together cannot all spend the same remaining dollars.
 */
describe('agent budget under concurrent turns', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      // ~0.05 USD a call at these prices: the budget holds a handful of calls, the turns ask for fifty.
      model: { price: { input: 100, output: 100 }, max_tokens: 100 },
      config: { agents: { default: { tools: ['current_time'], budget: { daily_usd: BUDGET_USD, enforce: true } } } },
    });
    // Every turn loops through the tool TOOL_STEPS times: TOOL_STEPS + 1 model calls a turn.
    h.llm.respond = (body) =>
      body.messages.filter((m) => m.role === 'tool').length < TOOL_STEPS
        ? { kind: 'tool_call', name: 'current_time', arguments: {} }
        : undefined;
  });
  afterAll(() => h.stop());

  it('keeps total spend within the budget plus one model call per concurrent turn, refusing the rest with budget_exceeded', async () => {
    const answers = await Promise.all(
      Array.from({ length: TURNS }, async (_, i) => {
        const res = await h.api('/v1/chat', { json: { message: `turn ${i}` } });
        return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
      }),
    );
    const [{ total, largest }] = await h.query<{ total: number; largest: number }>(
      `SELECT coalesce(sum(cost_usd), 0)::float8 AS total, coalesce(max(cost_usd), 0)::float8 AS largest FROM llm_calls`,
    );
    expect(largest).toBeGreaterThan(0.01);
    expect(total).toBeLessThanOrEqual(BUDGET_USD + TURNS * largest);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect({ status: r.status, code: r.body.error?.code }).toEqual({ status: 429, code: 'budget_exceeded' });
  });
});
