import { ConfigService, configSchema } from '@nestclaw/config';
import { ChatRequest, ChatResponse, ChatStreamEvent, ModelProvider, ProbeResult } from './model-provider.port';
import { ProviderAttemptError } from './provider.errors';
import { ProviderRegistry, RegisteredModel } from './provider.registry';
import { CircuitBreakerRegistry } from './reliability/circuit-breaker.registry';
import { ManualClock, MemoryIdempotencyStore } from '@nestclaw/testing';
import { Clock } from './reliability/clock';
import { RateLimitTracker } from './reliability/rate-limit.tracker';
import { AttemptAdmission } from './reliability/attempt-admission';
import { SpendBudget } from './budget/spend-budget';
import { ProviderChainError, ReliableProvider } from './reliable.provider';

type Step = 'ok' | 'hang' | ProviderAttemptError;

/** An in-process model that follows a script, then answers "<model> says hi". */
class ScriptedModel implements ModelProvider {
  readonly kind = 'stub';
  calls = 0;
  constructor(
    readonly model: string,
    readonly script: Step[] = [],
  ) {}

  private async step(signal?: AbortSignal): Promise<void> {
    this.calls++;
    const step = this.script.shift() ?? 'ok';
    if (step === 'hang') {
      await new Promise((_, reject) =>
        signal?.addEventListener('abort', () => reject(new ProviderAttemptError('cancelled', undefined, 'aborted'))),
      );
    }
    if (step instanceof ProviderAttemptError) throw step;
  }

  response(): ChatResponse {
    return {
      content: `${this.model} says hi`,
      toolCalls: [],
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 },
      finishReason: 'stop',
      model: this.model,
    };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    await this.step(request.signal);
    return this.response();
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    await this.step(request.signal);
    yield { type: 'text', text: `${this.model} ` };
    yield { type: 'text', text: 'says hi' };
    yield { type: 'done', response: this.response() };
  }

  probe(): Promise<ProbeResult> {
    return Promise.resolve({ reachable: true, keyRejected: false, latencyMs: 0 });
  }
}

const http = (status: number, retryAfterMs?: number) =>
  new ProviderAttemptError(status === 401 ? 'auth' : status === 400 ? 'bad_request' : 'retryable', status, `HTTP ${status}`, retryAfterMs);

function setup(models: ScriptedModel[], providers: Record<string, unknown> = {}, clock: Clock = new ManualClock()) {
  const config = configSchema.parse({
    providers: {
      primary: models[0].model,
      fallback: models.slice(1).map((m) => m.model),
      retry: { max_attempts: 2, base_delay: '10ms', max_delay: '1s' },
      circuit_breaker: { threshold: 2, reset_interval: '60s' },
      ...providers,
    },
  });
  const configService = { get: () => config } as unknown as ConfigService;
  const registered = new Map<string, RegisteredModel>(
    models.map((p) => [
      p.model,
      {
        name: p.model,
        kind: 'chat',
        provider: p,
        config: { provider: 'stub', model: p.model, kind: 'chat' },
        price: { input: 1, output: 2 },
        keySet: true,
        keyRequired: true,
      },
    ]),
  );
  const registry = { get: (n: string) => registered.get(n) } as unknown as ProviderRegistry;
  const breakers = new CircuitBreakerRegistry(configService, clock);
  const answers = new MemoryIdempotencyStore();
  const admission = new AttemptAdmission(breakers, new RateLimitTracker(clock), clock, new SpendBudget());
  const reliable = new ReliableProvider(registry, configService, admission, answers);
  reliable.random = () => 0.5;
  return { reliable, breakers, answers };
}

const ask = (text = 'hello'): ChatRequest => ({ messages: [{ role: 'user', content: text }] });

async function failure(p: Promise<unknown>): Promise<ProviderChainError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderChainError);
  return e as ProviderChainError;
}

describe('ReliableProvider', () => {
  it('tries a closed breaker on a later model before an open one', async () => {
    const [a, b, c] = [new ScriptedModel('a', [http(500), http(500)]), new ScriptedModel('b'), new ScriptedModel('c')];
    const { reliable } = setup([a, b, c]);
    await reliable.chat(ask('first'));
    expect(a.calls).toBe(2); // breaker (threshold 2) now open
    const { response, calls } = await reliable.chat(ask('second'));
    expect(response.content).toBe('b says hi');
    expect(a.calls).toBe(2);
    expect(calls.map((x) => [x.modelName, x.attempt, x.isFallback, x.status])).toEqual([['b', 1, true, 'ok']]);
  });

  it('reports provider_auth_failed naming the model when every model rejects its key, without retrying any', async () => {
    const [a, b] = [new ScriptedModel('a', [http(401)]), new ScriptedModel('b', [http(401)])];
    const { reliable, breakers } = setup([a, b]);
    const e = await failure(reliable.chat(ask()));
    expect(e.code).toBe('provider_auth_failed');
    expect(e.message).toMatch(/Bad or expired key for a.*Bad or expired key for b/);
    expect([a.calls, b.calls]).toEqual([1, 1]);
    expect(breakers.for('a').lastAuthFailure).toMatchObject({ status: 401 });
  });

  it('replays a stored answer as a zero-cost cached call, whichever model of the chain gave it', async () => {
    const [a, b] = [new ScriptedModel('a', [http(500), http(500)]), new ScriptedModel('b')];
    const { reliable } = setup([a, b]);
    const first = await reliable.chat(ask('same'));
    expect(first.response.content).toBe('b says hi');
    const again = await reliable.chat(ask('same'));
    expect(again.response.content).toBe('b says hi');
    expect(again.calls).toEqual([expect.objectContaining({ modelName: 'b', status: 'cached', costUsd: 0, isFallback: true })]);
    expect(b.calls).toBe(1);
  });

  it('does not keep answers when idempotency_ttl is 0', async () => {
    const a = new ScriptedModel('a');
    const { reliable } = setup([a], { idempotency_ttl: 0 });
    await reliable.chat(ask('same'));
    await reliable.chat(ask('same'));
    expect(a.calls).toBe(2);
  });

  it('streams from the fallback when the primary fails before its first token', async () => {
    const [a, b] = [new ScriptedModel('a', [http(502), http(502)]), new ScriptedModel('b')];
    const { reliable } = setup([a, b]);
    const events: string[] = [];
    for await (const e of reliable.chatStream(ask())) events.push(e.type === 'text' ? e.text : e.type);
    expect(events).toEqual(['b ', 'says hi', 'done']);
  });

  it('releases a half-open probe when the consumer abandons the stream', async () => {
    const a = new ScriptedModel('a', [http(500), http(500)]);
    const clock = new ManualClock();
    const { reliable, breakers } = setup([a], {}, clock);
    await failure(reliable.chat(ask('open it')));
    clock.advance(60_000);
    for await (const e of reliable.chatStream(ask('probe'))) {
      expect(e.type).toBe('text');
      break; // the client went away mid-stream
    }
    expect(breakers.for('a').available).toBe(true);
  });
});

/** Moves jest's fake time by `ms` and says whether `p` has settled by then (its outcome stays with `p`). */
async function settledAfter(p: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await jest.advanceTimersByTimeAsync(ms);
  return settled;
}

// Budgets, shares, backoff and breaker probes are checked on jest's fake clock (timers, Date and
// performance.now move together), at the exact millisecond each should act.
describe('ReliableProvider timing', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  /** Two failures open the breaker of `a` (threshold 2), each settled on the fake clock. */
  async function breakIt(reliable: ReliableProvider): Promise<void> {
    const broken = reliable.chat(ask('breaks it'));
    expect(await settledAfter(broken, 10)).toBe(true);
    await failure(broken);
  }

  it("waits for an open breaker's probe when no other model is left and the probe time fits in the budget", async () => {
    const a = new ScriptedModel('a', [http(500), http(500)]);
    const { reliable } = setup(
      [a],
      { circuit_breaker: { threshold: 2, reset_interval: '150ms' }, retry: { max_attempts: 2, base_delay: '1ms' } },
      new Clock(),
    );
    await breakIt(reliable);
    const waits = reliable.chat(ask('waits'));
    expect(await settledAfter(waits, 100)).toBe(false);
    expect(a.calls).toBe(2);
    expect(await settledAfter(waits, 60)).toBe(true);
    expect((await waits).response.content).toBe('a says hi');
  });

  it('says which breakers are open, without waiting, when the probe is further off than max_delay', async () => {
    const a = new ScriptedModel('a', [http(500), http(500)]);
    const { reliable } = setup([a], {}, new Clock());
    await breakIt(reliable);
    const refused = reliable.chat(ask('refused'));
    expect(await settledAfter(refused, 0)).toBe(true);
    const e = await failure(refused);
    expect(e).toMatchObject({ code: 'provider_error', message: expect.stringContaining('a (circuit open)'), calls: [] });
  });

  it('sleeps the jittered backoff before retrying the same model', async () => {
    const a = new ScriptedModel('a', [http(503)]);
    const { reliable } = setup([a], { retry: { max_attempts: 2, base_delay: '80ms', max_delay: '1s' } }, new Clock());
    const answer = reliable.chat(ask());
    // 80 ms × (0.5 + 0.5 × random 0.5) = 60 ms
    expect(await settledAfter(answer, 59)).toBe(false);
    expect(a.calls).toBe(1);
    expect(await settledAfter(answer, 1)).toBe(true);
    expect((await answer).calls.map((c) => [c.attempt, c.status, c.errorCode])).toEqual([
      [1, 'error', 'http_503'],
      [2, 'ok', undefined],
    ]);
  });

  it('gives a hanging primary only its share of the budget when a fallback is ready', async () => {
    const [a, b] = [new ScriptedModel('a', ['hang']), new ScriptedModel('b')];
    const { reliable } = setup([a, b], { timeout_budget: '600ms' }, new Clock());
    const answer = reliable.chat(ask());
    // two ready models: the primary gets half of 600 ms
    expect(await settledAfter(answer, 299)).toBe(false);
    expect(b.calls).toBe(0);
    expect(await settledAfter(answer, 1)).toBe(true);
    const { response, calls } = await answer;
    expect(response.content).toBe('b says hi');
    expect(calls[0]).toMatchObject({ modelName: 'a', errorCode: 'timeout', latencyMs: 300 });
  });

  it('caps a model at attempt_timeout when that is shorter than its share', async () => {
    const [a, b] = [new ScriptedModel('a', ['hang']), new ScriptedModel('b')];
    const { reliable } = setup([a, b], { timeout_budget: '5s', attempt_timeout: '100ms' }, new Clock());
    const answer = reliable.chat(ask());
    expect(await settledAfter(answer, 99)).toBe(false);
    expect(await settledAfter(answer, 1)).toBe(true);
    expect((await answer).calls[0]).toMatchObject({ modelName: 'a', errorCode: 'timeout' });
  });

  it('stops at once when the caller cancels, recording the attempt as cancelled', async () => {
    const [a, b] = [new ScriptedModel('a', ['hang']), new ScriptedModel('b')];
    const { reliable } = setup([a, b], {}, new Clock());
    const caller = new AbortController();
    const answer = reliable.chat(ask(), { signal: caller.signal });
    expect(await settledAfter(answer, 30)).toBe(false);
    caller.abort();
    expect(await settledAfter(answer, 0)).toBe(true);
    const e = await failure(answer);
    expect(e.code).toBe('cancelled');
    expect(e.calls.map((c) => [c.modelName, c.status])).toEqual([['a', 'cancelled']]);
    expect(b.calls).toBe(0);
  });
});
