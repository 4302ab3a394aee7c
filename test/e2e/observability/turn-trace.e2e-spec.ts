import { OtlpReceiver, ReceivedSpan } from '../../fixtures/otlp-receiver.server';
import { ObservedGateway, startObservedGateway } from '../../support/observed-gateway';

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('a turn with a tool call, traced over OTLP/HTTP', () => {
  let otlp: OtlpReceiver;
  let o: ObservedGateway;
  let traceId: string;
  let spans: ReceivedSpan[];
  const secretWords = 'purple-elephant-7 [tool:current_time {}]';

  beforeAll(async () => {
    otlp = new OtlpReceiver();
    await otlp.start();
    o = await startObservedGateway(
      { agents: { default: { tools: ['current_time'] } } },
      { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'nestclaw-test' },
    );
    const res = await o.api('/v1/chat', { message: secretWords });
    expect(res.status).toBe(200);
    traceId = res.headers.get('x-trace-id')!;
    await until(() => otlp.trace(traceId).some((s) => s.name.startsWith('http.request')));
    spans = otlp.trace(traceId);
  }, 90_000);
  afterAll(async () => {
    await o?.stop();
    await otlp?.stop();
  });

  const one = (prefix: string) => {
    const found = spans.filter((s) => s.name.startsWith(prefix));
    expect(found).toHaveLength(1);
    return found[0];
  };

  it('returns the trace id in the x-trace-id header', () => {
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('hangs the agent turn under the HTTP request span', () => {
    const http = one('http.request POST /v1/chat');
    expect(http.parentSpanId).toBeUndefined();
    const turn = one('invoke_agent default');
    expect(turn.parentSpanId).toBe(http.spanId);
    expect(turn.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'default' });
    expect(turn.attributes['gen_ai.conversation.id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(turn.attributes['nestclaw.turn.id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('records each model attempt as a GenAI chat span under the turn', () => {
    const turn = one('invoke_agent default');
    const chats = spans.filter((s) => s.name === 'chat fake-model');
    expect(chats).toHaveLength(2);
    for (const c of chats) {
      expect(c.parentSpanId).toBe(turn.spanId);
      expect(c.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai-compatible',
        'gen_ai.request.model': 'fake-model',
      });
      expect(c.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    }
  });

  it('records the tool run as an execute_tool span under the turn', () => {
    const tool = one('execute_tool current_time');
    expect(tool.parentSpanId).toBe(one('invoke_agent default').spanId);
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'current_time', 'nestclaw.tool.outcome': 'ok' });
  });

  it('traces the SQL statements of the turn, one span each, without transaction control', () => {
    const ids = new Set(spans.map((s) => s.spanId));
    const sql = spans.filter((s) => s.name.startsWith('pg.query'));
    expect(sql.length).toBeGreaterThan(0);
    for (const s of sql) expect(ids.has(s.parentSpanId!)).toBe(true);
    expect(sql.filter((s) => /^pg\.query:(BEGIN|COMMIT)/.test(s.name))).toEqual([]);
    // The turn's own statements are there, parameterised (no message content, checked below).
    expect(sql.some((s) => s.name === 'pg.query:INSERT' && s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    expect(sql.every((s) => typeof s.attributes['db.query.text'] === 'string')).toBe(true);
  });

  it('records no message content by default', () => {
    const text = JSON.stringify(spans);
    expect(text).not.toContain('purple-elephant-7');
    expect(text).not.toContain('sk-test-secret-key');
  });
});
