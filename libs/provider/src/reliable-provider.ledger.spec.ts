import { ConfigService, configSchema } from '@nestclaw/config';
import type { AttemptStart, CallLedger, OpenCall } from './llm-call.record';
import { ChatRequest, ChatResponse, ChatStreamEvent, ModelProvider, ProbeResult } from './model-provider.port';
import { ProviderAttemptError } from './provider.errors';
import { ProviderRegistry, RegisteredModel } from './provider.registry';
import { CircuitBreakerRegistry } from './reliability/circuit-breaker.registry';
import { ManualClock, MemoryIdempotencyStore } from '@nestclaw/testing';
import { RateLimitTracker } from './reliability/rate-limit.tracker';
import { AttemptAdmission } from './reliability/attempt-admission';
import { SpendBudget } from './budget/spend-budget';
import { ProviderChainError, ReliableProvider } from './reliable.provider';

/** A model that fails its first `failures` calls with a 500 and notes which ledger row each request was sent with (as nodeFetch does: open, commit, send). */
class NotingModel implements ModelProvider {
  readonly kind = 'stub';
  readonly seen: (string | undefined)[] = [];
  constructor(
    readonly model: string,
    private failures = 0,
  ) {}

  private async answer(request: ChatRequest): Promise<ChatResponse> {
    const call = await request.gate?.();
    void call?.commit();
    this.seen.push(call?.id);
    if (this.failures-- > 0) throw new ProviderAttemptError('retryable', 500, 'HTTP 500');
    return {
      content: 'hi',
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
      finishReason: 'stop',
      model: this.model,
    };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    return this.answer(request);
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    const response = await this.answer(request);
    yield { type: 'text', text: response.content };
    yield { type: 'done', response };
  }

  probe(): Promise<ProbeResult> {
    return Promise.resolve({ reachable: true, keyRejected: false, latencyMs: 0 });
  }
}

function setup(models: NotingModel[]) {
  const config = configSchema.parse({
    providers: {
      primary: models[0].model,
      fallback: models.slice(1).map((m) => m.model),
      retry: { max_attempts: 2, base_delay: '1ms', max_delay: '1ms' },
      idempotency_ttl: 0,
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
      } as RegisteredModel,
    ]),
  );
  const registry = { get: (n: string) => registered.get(n) } as unknown as ProviderRegistry;
  const clock = new ManualClock();
  return new ReliableProvider(
    registry,
    configService,
    new AttemptAdmission(new CircuitBreakerRegistry(configService, clock), new RateLimitTracker(clock), clock, new SpendBudget()),
    new MemoryIdempotencyStore(),
  );
}

/** Ledger rows in memory, in the order attempts were opened; `rows` holds the committed ones. */
class MemoryLedger implements CallLedger {
  readonly rows: AttemptStart[] = [];
  private opened = 0;
  async open(a: AttemptStart): Promise<OpenCall> {
    const id = `row-${++this.opened}`;
    return {
      id,
      commit: async () => void this.rows.push(a),
      discard: async () => undefined,
    };
  }
}

const ask: ChatRequest = { messages: [{ role: 'user', content: 'hello' }] };

describe('ReliableProvider and the call ledger', () => {
  it('commits the row of every attempt as its request is sent, and the request and its record carry the row id', async () => {
    const [a, b] = [new NotingModel('a', 2), new NotingModel('b')];
    const ledger = new MemoryLedger();
    const { calls } = await setup([a, b]).chat(ask, { ledger });
    expect(ledger.rows.map((r) => [r.modelName, r.attempt, r.isFallback])).toEqual([
      ['a', 1, false],
      ['a', 2, false],
      ['b', 3, true],
    ]);
    expect([...a.seen, ...b.seen]).toEqual(['row-1', 'row-2', 'row-3']);
    expect(calls.map((c) => [c.ledgerId, c.status])).toEqual([
      ['row-1', 'error'],
      ['row-2', 'error'],
      ['row-3', 'ok'],
    ]);
  });

  it('does the same for streamed requests', async () => {
    const ledger = new MemoryLedger();
    const a = new NotingModel('a');
    const events = [];
    for await (const e of setup([a]).chatStream(ask, { ledger })) events.push(e);
    expect(a.seen).toEqual(['row-1']);
    expect(events.at(-1)).toMatchObject({ type: 'done', calls: [{ ledgerId: 'row-1', status: 'ok' }] });
  });

  it('sends no request when the attempt cannot be recorded', async () => {
    const a = new NotingModel('a');
    const broken: CallLedger = { open: () => Promise.reject(new Error('database down')) };
    const e = await setup([a])
      .chat(ask, { ledger: broken })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ProviderChainError);
    expect(a.seen).toEqual([]);
  });
});
