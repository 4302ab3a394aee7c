import { FakeAnthropicServer } from '../../fixtures/fake-anthropic.server';
import { FakeGeminiServer } from '../../fixtures/fake-gemini.server';
import { FakeOllamaServer } from '../../fixtures/fake-ollama.server';
import { Harness, startHarness } from '../../support/gateway-harness';
import { readSse } from '../../support/sse';
import { callsOf, chat } from './chain-fixtures';

interface ModelStatus {
  name: string;
  kind: string;
  provider: string;
  model: string;
  role: string;
  keySet: boolean;
  keyRequired: boolean;
  keyRejected: boolean;
  breaker: { state: string };
  recent: { calls: number; failures: number; errorRate: number };
  reachability?: { reachable: boolean; keyRejected: boolean };
}

/**
 * A chain of native providers (Anthropic → Gemini → Ollama) wired from config, and what
 * `GET /v1/providers` and `/doctor` show about each model.
 */
describe('native providers in the chain, GET /v1/providers and /doctor', () => {
  let h: Harness;
  const anthropic = new FakeAnthropicServer();
  const gemini = new FakeGeminiServer();
  const ollama = new FakeOllamaServer();

  beforeAll(async () => {
    await Promise.all([anthropic.start(), gemini.start(), ollama.start()]);
    anthropic.apiKey = 'sk-ant';
    gemini.apiKey = 'AIza';
    h = await startHarness({
      config: {
        models: {
          claude: { provider: 'anthropic', base_url: anthropic.url, api_key: 'sk-ant', model: 'claude-haiku-4-5' },
          gemini: { provider: 'gemini', base_url: gemini.url, api_key: 'AIza', model: 'gemini-2.5-flash' },
          local: { provider: 'ollama', base_url: ollama.url, model: 'qwen2.5' },
          embed: { provider: 'ollama', base_url: ollama.url, model: 'nomic-embed-text', kind: 'embedding' },
          // A closed port: unreachable at once, and no traffic leaves the machine.
          nokey: { provider: 'openai', base_url: 'http://127.0.0.1:9/v1', model: 'gpt-4o-mini', api_key: '' },
        },
        providers: { primary: 'claude', fallback: ['gemini', 'local'], retry: { max_attempts: 1 } },
      },
    });
  });
  afterAll(async () => {
    await h.stop();
    await Promise.all([anthropic.stop(), gemini.stop(), ollama.stop()]);
  });

  it('answers through the Anthropic primary, priced from the built-in table', async () => {
    const { body } = await chat(h, 'hello claude');
    expect(body.reply).toBe('echo: hello claude');
    expect(body.usage.costUsd).toBeCloseTo((body.usage.inputTokens * 1 + body.usage.outputTokens * 5) / 1e6, 8);
  });

  it('falls over from Anthropic (529) to Gemini, and from both to the local Ollama model while streaming', async () => {
    anthropic.enqueue({ kind: 'error', status: 529 });
    const first = await chat(h, 'over to gemini');
    expect(first.body.reply).toBe('echo: over to gemini');
    expect((await callsOf(h, first.body.sessionId)).map((c) => [c.provider, c.status])).toEqual([
      ['anthropic', 'error'],
      ['gemini', 'ok'],
    ]);
    anthropic.enqueue({ kind: 'error', status: 529 });
    gemini.enqueue({ kind: 'error', status: 503 });
    const events = await readSse(await h.api('/v1/chat', { json: { message: 'over to ollama', stream: true } }));
    const done = JSON.parse(events[events.length - 1].data) as { reply: string; sessionId: string };
    expect(done.reply).toBe('echo: over to ollama');
    expect((await callsOf(h, done.sessionId)).map((c) => [c.provider, c.status, c.is_fallback])).toEqual([
      ['anthropic', 'error', false],
      ['gemini', 'error', true],
      ['ollama', 'ok', true],
    ]);
  });

  it('runs a tool round trip through the Anthropic primary', async () => {
    const { body } = await chat(h, 'time? [tool:current_time {"timezone":"UTC"}]');
    expect(body.reply).toMatch(/^tool said: /);
    expect((await callsOf(h, body.sessionId)).map((c) => c.status)).toEqual(['ok', 'ok']);
  });

  it('lists every model with role, key state (never the key), breaker state, recent error rate and reachability', async () => {
    const res = await h.api('/v1/providers');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('sk-ant');
    expect(text).not.toContain('AIza');
    const { models } = JSON.parse(text) as { models: ModelStatus[] };
    const by = Object.fromEntries(models.map((m) => [m.name, m]));
    expect(Object.keys(by)).toEqual(['claude', 'gemini', 'local', 'embed', 'nokey']);
    expect(by.claude).toMatchObject({ kind: 'chat', provider: 'anthropic', role: 'primary', keySet: true, breaker: { state: 'closed' } });
    expect(by.claude.recent.calls).toBeGreaterThanOrEqual(4);
    expect(by.claude.recent.failures).toBe(2);
    expect(by.claude.recent.errorRate).toBeGreaterThan(0);
    expect(by.gemini).toMatchObject({ role: 'fallback', reachability: { reachable: true, keyRejected: false } });
    expect(by.local).toMatchObject({ provider: 'ollama', keySet: false, keyRequired: false, reachability: { reachable: true } });
    expect(by.embed).toMatchObject({ kind: 'embedding', role: 'none' });
    expect(by.nokey).toMatchObject({ keySet: false, keyRequired: true });
  });

  it('skips probing with ?probe=false and needs the bearer token', async () => {
    const { models } = (await (await h.api('/v1/providers?probe=false')).json()) as { models: ModelStatus[] };
    expect(models.every((m) => m.reachability === undefined)).toBe(true);
    expect((await fetch(`${h.gateway.url}/v1/providers`)).status).toBe(401);
  });

  it('lists every model in /doctor with reachability, breaker state, error rate and whether its key is set', async () => {
    const { checks } = (await (await h.api('/doctor')).json()) as { checks: { name: string; status: string; message: string }[] };
    const by = Object.fromEntries(checks.filter((c) => c.name.startsWith('model ')).map((c) => [c.name, c]));
    expect(Object.keys(by)).toEqual(['model claude', 'model gemini', 'model local', 'model embed', 'model nokey']);
    expect(by['model claude']).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/reachable.*key set.*breaker closed.*% errors/),
    });
    expect(by['model local'].message).toContain('no key needed');
    expect(by['model nokey']).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/127\.0\.0\.1:9\/v1 not reachable.*no key set/),
    });
  });
});
