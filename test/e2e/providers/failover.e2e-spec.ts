import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { Harness, startHarness } from '../../support/gateway-harness';
import { readSse } from '../../support/sse';
import { callsOf, chat, chatHits, freezeClock, openAiModel, startFakes } from './chain-fixtures';

/**
 * The ReliableProvider through the real gateway: a primary and a fallback (fake OpenAI-compatible
 * servers injecting faults), plus models reached through their own agents for the rate-limit and
 * bad-key cases so each test leaves the default chain healthy.
 */
describe('ReliableProvider failover through POST /v1/chat', () => {
  let h: Harness;
  let primary: FakeOpenAiServer;
  let backup: FakeOpenAiServer;
  let limited: FakeOpenAiServer;
  let metered: FakeOpenAiServer;
  let locked: FakeOpenAiServer;
  let clock: { advance(ms: number): void };

  beforeAll(async () => {
    [primary, backup, limited, metered, locked] = await startFakes(5);
    locked.apiKey = 'the-right-key';
    h = await startHarness({
      config: {
        models: {
          primary: openAiModel(primary, 'primary-model'),
          backup: openAiModel(backup, 'backup-model'),
          limited: openAiModel(limited, 'limited-model', { limits: { rpm: 2 } }),
          metered: openAiModel(metered, 'metered-model'),
          locked: openAiModel(locked, 'locked-model', { api_key: 'a-wrong-key' }),
        },
        providers: {
          primary: 'primary',
          fallback: ['backup'],
          timeout_budget: '5s',
          retry: { max_attempts: 3, base_delay: '20ms', max_delay: '8s' },
          circuit_breaker: { threshold: 3, reset_interval: '60s' },
        },
        agents: { default: {}, limited: { model: 'limited' }, metered: { model: 'metered' }, locked: { model: 'locked' } },
      },
    });
    clock = freezeClock(h);
  });
  afterAll(async () => {
    await h.stop();
    await Promise.all([primary, backup, limited, metered, locked].map((f) => f.stop()));
  });

  describe('circuit breaker', () => {
    it('retries a 500 on the primary, then answers from the first fallback and records every attempt', async () => {
      primary.enqueue({ kind: 'error', status: 500 }, { kind: 'error', status: 500 }, { kind: 'error', status: 500 });
      const { status, body } = await chat(h, 'breaker one');
      expect(status).toBe(200);
      expect(body.reply).toBe('echo: breaker one');
      expect(chatHits(primary)).toBe(3);
      const calls = await callsOf(h, body.sessionId);
      expect(calls.map((c) => [c.model, c.attempt, c.is_fallback, c.status, c.error_code])).toEqual([
        ['primary-model', 1, false, 'error', 'http_500'],
        ['primary-model', 2, false, 'error', 'http_500'],
        ['primary-model', 3, false, 'error', 'http_500'],
        ['backup-model', 4, true, 'ok', null],
      ]);
    });

    it('does not touch the primary on the next request while its breaker is open', async () => {
      const before = chatHits(primary);
      const { body } = await chat(h, 'breaker two');
      expect(body.reply).toBe('echo: breaker two');
      expect(chatHits(primary)).toBe(before);
      const providers = (await (await h.api('/v1/providers?probe=false')).json()) as {
        models: { name: string; breaker: { state: string } }[];
      };
      expect(providers.models.find((m) => m.name === 'primary')?.breaker.state).toBe('open');
    });

    it('keeps skipping the primary until the reset interval has passed on the clock', async () => {
      const before = chatHits(primary);
      clock.advance(59_000);
      await chat(h, 'breaker three');
      expect(chatHits(primary)).toBe(before);
    });

    it('lets one probe through after the reset interval and closes the breaker when it succeeds', async () => {
      const before = chatHits(primary);
      clock.advance(1_000);
      const { body } = await chat(h, 'breaker four');
      expect(chatHits(primary)).toBe(before + 1);
      const calls = await callsOf(h, body.sessionId);
      expect(calls.map((c) => [c.model, c.status])).toEqual([['primary-model', 'ok']]);
      const providers = (await (await h.api('/v1/providers?probe=false')).json()) as {
        models: { name: string; breaker: { state: string } }[];
      };
      expect(providers.models.find((m) => m.name === 'primary')?.breaker.state).toBe('closed');
      await chat(h, 'breaker five');
      expect(chatHits(primary)).toBe(before + 2);
    });
  });

  describe('rate limits', () => {
    it('falls over at once on a 429 whose Retry-After (30 s) is longer than the budget left (5 s)', async () => {
      primary.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
      const before = chatHits(primary);
      const started = performance.now();
      const { body } = await chat(h, 'too many');
      expect(performance.now() - started).toBeLessThan(1000);
      expect(body.reply).toBe('echo: too many');
      expect(chatHits(primary)).toBe(before + 1);
      // and the primary is left alone until its Retry-After has passed
      await chat(h, 'still too many');
      expect(chatHits(primary)).toBe(before + 1);
      clock.advance(31_000);
      await chat(h, 'fine again');
      expect(chatHits(primary)).toBe(before + 2);
    });

    it('bypasses a model configured with rpm: 2 on the third request within a minute, without seeing a 429', async () => {
      const replies: string[] = [];
      for (const m of ['r1', 'r2', 'r3']) replies.push((await chat(h, m, { agentId: 'limited' })).body.reply);
      expect(replies).toEqual(['echo: r1', 'echo: r2', 'echo: r3']);
      expect(chatHits(limited)).toBe(2);
      const { body } = await chat(h, 'r4', { agentId: 'limited' });
      expect((await callsOf(h, body.sessionId)).map((c) => [c.model, c.is_fallback])).toEqual([['backup-model', true]]);
      clock.advance(60_000);
      await chat(h, 'r5', { agentId: 'limited' });
      expect(chatHits(limited)).toBe(3);
    });

    it('routes around a model whose x-ratelimit-remaining-requests says 0 until its reset time', async () => {
      metered.responseHeaders = { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20s' };
      await chat(h, 'm1', { agentId: 'metered' });
      expect(chatHits(metered)).toBe(1);
      const { body } = await chat(h, 'm2', { agentId: 'metered' });
      expect(body.reply).toBe('echo: m2');
      expect(chatHits(metered)).toBe(1);
      metered.responseHeaders = {};
      clock.advance(20_000);
      await chat(h, 'm3', { agentId: 'metered' });
      expect(chatHits(metered)).toBe(2);
    });
  });

  describe('error classes', () => {
    it('does not retry a 401, falls over, and the doctor names the model and says its key is bad', async () => {
      const { status, body } = await chat(h, 'who am i', { agentId: 'locked' });
      expect(status).toBe(200);
      expect(body.reply).toBe('echo: who am i');
      expect(chatHits(locked)).toBe(1);
      const calls = await callsOf(h, body.sessionId);
      expect(calls.map((c) => [c.model, c.status, c.error_code])).toEqual([
        ['locked-model', 'error', 'http_401'],
        ['backup-model', 'ok', null],
      ]);
      const doctor = (await (await h.api('/doctor')).json()) as { checks: { name: string; status: string; message: string }[] };
      const check = doctor.checks.find((c) => c.name === 'model locked');
      expect(check).toMatchObject({ status: 'fail', message: expect.stringContaining('bad or expired key for locked') });
      expect(doctor.checks.find((c) => c.name === 'model primary')?.status).toBe('ok');
    });

    it('surfaces a 400 without retrying or falling over', async () => {
      primary.enqueue({ kind: 'error', status: 400, message: 'temperature must be a number' });
      const before = [chatHits(primary), chatHits(backup)];
      const { status, body } = await chat(h, 'bad request');
      expect(status).toBe(502);
      expect(body.error).toMatchObject({ code: 'provider_error', message: expect.stringContaining('rejected the request') });
      expect([chatHits(primary), chatHits(backup)]).toEqual([before[0] + 1, before[1]]);
    });

    it('reports an exceeded context window with its own code, without falling over', async () => {
      // The agent compacts and retries once (issue 12); the second refusal is the answer.
      const tooLong = { kind: 'error', status: 400, message: "This model's maximum context length is 8192 tokens" } as const;
      primary.enqueue(tooLong, tooLong);
      const before = chatHits(backup);
      const { status, body } = await chat(h, 'way too long');
      expect(status).toBe(400);
      expect(body.error?.code).toBe('context_length_exceeded');
      expect(chatHits(backup)).toBe(before);
    });
  });

  describe('streaming', () => {
    it('shows the tokens of a stream cut mid-way, then stream_interrupted, and keeps the partial text marked interrupted', async () => {
      const { sessionId } = (await chat(h, 'hello first')).body;
      primary.enqueue({ kind: 'cut', text: 'alpha beta gamma delta epsilon', afterTokens: 3, tokenDelayMs: 10 });
      const before = chatHits(backup);
      const res = await h.api('/v1/chat', { json: { message: 'tell me a story', sessionId, stream: true } });
      const events = await readSse(res);
      const tokens = events.filter((e) => e.event === 'token').map((e) => (JSON.parse(e.data) as { text: string }).text);
      const shown = tokens.join('');
      expect(shown.length).toBeGreaterThan(0);
      expect('alpha beta gamma delta epsilon'.startsWith(shown)).toBe(true);
      const last = events[events.length - 1];
      expect(last.event).toBe('error');
      expect(JSON.parse(last.data)).toMatchObject({ code: 'stream_interrupted' });
      expect(chatHits(backup)).toBe(before);
      const { messages } = (await (await h.api(`/v1/sessions/${sessionId}/messages`)).json()) as {
        messages: { role: string; content: string; status: string }[];
      };
      expect(messages.slice(-2).map((m) => [m.role, m.content, m.status])).toEqual([
        ['user', 'tell me a story', 'interrupted'],
        ['assistant', shown, 'interrupted'],
      ]);
      const calls = await callsOf(h, sessionId);
      expect(calls[calls.length - 1]).toMatchObject({ model: 'primary-model', status: 'error', error_code: 'stream_interrupted' });
    });

    it('falls over silently when a stream is cut before its first token', async () => {
      const cut = { kind: 'cut' as const, text: 'never shown', afterTokens: 0 };
      primary.enqueue(cut, cut, cut);
      const res = await h.api('/v1/chat', { json: { message: 'quiet failover', stream: true } });
      const events = await readSse(res);
      expect(events.map((e) => e.event)).not.toContain('error');
      const tokens = events.filter((e) => e.event === 'token').map((e) => (JSON.parse(e.data) as { text: string }).text);
      expect(tokens.join('')).toBe('echo: quiet failover');
      const done = JSON.parse(events[events.length - 1].data) as { sessionId: string };
      const calls = await callsOf(h, done.sessionId);
      // Retries on the primary (until its breaker opens or attempts run out), then the fallback.
      const failed = calls.slice(0, -1);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.every((c) => c.model === 'primary-model' && c.status === 'error')).toBe(true);
      expect(calls[calls.length - 1]).toMatchObject({ model: 'backup-model', status: 'ok', is_fallback: true });
    });
  });
});
