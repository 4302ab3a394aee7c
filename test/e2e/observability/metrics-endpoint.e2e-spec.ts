import { Harness, startHarness } from '../../support/gateway-harness';

async function pairedToken(h: Harness, scopes: string[]): Promise<string> {
  const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes } })).json()) as { code: string };
  const res = await fetch(`${h.gateway.url}/v1/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, name: `scraper-${scopes.join('-')}` }),
  });
  return ((await res.json()) as { token: string }).token;
}

const scrape = (h: Harness, token?: string) =>
  fetch(`${h.gateway.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

/** The value of one series in a Prometheus text scrape (labels matched as a substring). */
export function sample(text: string, name: string, labels = ''): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith(' ') || rest.startsWith('{'))) continue;
    if (labels && !rest.includes(labels)) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { agents: { default: { tools: ['current_time'] } } } });
  });
  afterAll(() => h.stop());

  it('refuses a scrape without a token with 401', async () => {
    const res = await scrape(h);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('refuses a scrape with a wrong token with 401', async () => {
    const res = await scrape(h, 'not-a-token-of-this-gateway-0123456789');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('refuses a token without the metrics scope with 403', async () => {
    expect((await scrape(h, await pairedToken(h, ['chat']))).status).toBe(403);
  });

  it('answers a paired token with the metrics scope, in the Prometheus text format', async () => {
    const res = await scrape(h, await pairedToken(h, ['metrics']));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE nestclaw_build_info gauge');
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('counts a turn, its model call, tokens, cost and its tool run', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'what time is it [tool:current_time {}]' } });
    expect(res.status).toBe(200);
    const text = await (await h.api('/metrics')).text();
    expect(sample(text, 'nestclaw_turns_total', 'agent="default",channel="http",outcome="ok"')).toBe(1);
    expect(sample(text, 'nestclaw_model_calls_total', 'model="fake",outcome="ok"')).toBe(2);
    expect(sample(text, 'nestclaw_model_tokens_total', 'token_type="input"')).toBeGreaterThan(0);
    expect(sample(text, 'nestclaw_model_cost_usd_total', 'agent="default",model="fake"')).toBeGreaterThan(0);
    expect(sample(text, 'nestclaw_tool_runs_total', 'tool="current_time",outcome="ok"')).toBe(1);
    expect(sample(text, 'gen_ai_client_operation_duration_seconds_count', 'model="fake"')).toBe(2);
    expect(sample(text, 'nestclaw_db_pool_clients', 'state="idle"')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'nestclaw_db_migrations_applied')).toBeGreaterThan(0);
  });

  it('keeps session ids out of every label', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'hello' } });
    const { sessionId } = (await res.json()) as { sessionId: string };
    const text = await (await h.api('/metrics')).text();
    expect(text).not.toContain(sessionId);
  });
});
