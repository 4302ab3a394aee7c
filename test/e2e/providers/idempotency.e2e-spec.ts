import { DatabaseService } from '@nestclaw/db';
import { FakeOpenAiServer } from '../../fixtures/fake-openai.server';
import { Harness, startHarness } from '../../support/gateway-harness';
import { readSse } from '../../support/sse';
import { chat, chatHits, openAiModel, startFakes } from './chain-fixtures';

/** The same non-streaming request (same model, messages, tools, params) is paid for once. */
describe('idempotent model requests', () => {
  let h: Harness;
  let model: FakeOpenAiServer;

  beforeAll(async () => {
    [model] = await startFakes(1);
    // No system prompt (its "current time" line changes every minute) and no long-term memory (the
    // first answer, recalled into the next session's prompt): either would make the repeated question
    // a different request.
    h = await startHarness({
      config: {
        models: { main: openAiModel(model, 'main-model') },
        providers: { idempotency_ttl: '10m' },
        agents: { default: { prompt_mode: 'none' } },
        memory: { enabled: false },
      },
    });
  });
  afterAll(async () => {
    await h.stop();
    await model.stop();
  });

  const billed = async (sessionIds: string[]) => {
    const { rows } = await h.gateway.app
      .get(DatabaseService)
      .pool.query<{ status: string; cost_usd: string }>(
        `SELECT status, cost_usd::text AS cost_usd FROM llm_calls WHERE session_id = ANY($1::text[]) ORDER BY id`,
        [sessionIds],
      );
    return rows;
  };

  it('reaches the model once for a request sent twice and once more after a gateway restart, billing one call', async () => {
    const first = await chat(h, 'what is the capital of France?');
    const second = await chat(h, 'what is the capital of France?');
    await h.restart();
    const third = await chat(h, 'what is the capital of France?');
    for (const r of [first, second, third]) {
      expect(r.status).toBe(200);
      expect(r.body.reply).toBe('echo: what is the capital of France?');
    }
    expect(chatHits(model)).toBe(1);
    expect(first.body.usage.costUsd).toBeGreaterThan(0);
    expect([second.body.usage.costUsd, third.body.usage.costUsd]).toEqual([0, 0]);
    const rows = await billed([first, second, third].map((r) => r.body.sessionId));
    expect(rows.map((r) => r.status)).toEqual(['ok', 'cached', 'cached']);
    expect(rows.filter((r) => Number(r.cost_usd) > 0)).toHaveLength(1);
  });

  it('calls the model again when anything in the request differs', async () => {
    const before = chatHits(model);
    await chat(h, 'a question');
    await chat(h, 'a question?');
    expect(chatHits(model)).toBe(before + 2);
  });

  it('never replays a streamed request', async () => {
    const before = chatHits(model);
    for (let i = 0; i < 2; i++) {
      const res = await h.api('/v1/chat', { json: { message: 'stream me twice', stream: true } });
      expect((await readSse(res)).map((e) => e.event)).toContain('done');
    }
    expect(chatHits(model)).toBe(before + 2);
  });
});
