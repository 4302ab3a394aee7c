import { HookRegistry, SubagentStopEvent } from '@nestclaw/tool';
import { readSse } from '../../support/sse';
import { Harness, startHarness } from '../../support/gateway-harness';

const TOOLS = ['current_time', 'spawn'];

describe('subagents (spawn tool)', () => {
  let h: Harness;
  const stops: SubagentStopEvent[] = [];

  beforeAll(async () => {
    h = await startHarness({
      config: {
        agents: {
          default: { tools: TOOLS, subagents: { allow_agents: ['*'], max_per_session: 2 } },
          worker: { tools: TOOLS, subagents: { allow_agents: ['*'] } },
          closed: { tools: TOOLS },
        },
      },
    });
    h.gateway.app.get(HookRegistry).on('SubagentStop', (e) => void stops.push(e));
    // The child of the cancellation test answers slowly.
    h.llm.respond = (body) =>
      body.messages.at(-1)?.content === 'a very slow task' ? { kind: 'text', text: 'late', delayMs: 20_000 } : undefined;
  });
  afterAll(() => h.stop());

  async function chat(message: string, extra: Record<string, unknown> = {}) {
    const res = await h.api('/v1/chat', { json: { message, ...extra } });
    return (await res.json()) as { reply: string; sessionId: string };
  }
  const report = (reply: string) => (JSON.parse(reply.replace(/^tool said: /, '')) as { subagent: Record<string, unknown> }).subagent;

  it("runs the task in a child session with the minimal prompt and returns the child's report to the parent", async () => {
    const r = await chat('[tool:spawn {"task":"count the stars","agentId":"worker"}]');
    const rep = report(r.reply);
    expect(rep).toMatchObject({
      agentId: 'worker',
      status: 'ok',
      result: 'echo: count the stars',
      usage: { inputTokens: expect.any(Number) },
    });
    const child = h.llm.requests.find((q) => q.body.messages.at(-1)?.content === 'count the stars')!.body.messages;
    expect(child[0].content).toContain('## Context');
    expect(child[0].content).not.toContain('## SOUL.md');
    const childSession = `agent:worker:subagent:${rep.id as string}`;
    const { messages } = (await (await h.api(`/v1/sessions/${childSession}/messages`)).json()) as { messages: { content: string }[] };
    expect(messages.map((m) => m.content)).toEqual(['count the stars', 'echo: count the stars']);
    // The parent's transcript holds the report as the spawn tool's result.
    const parent = (await (await h.api(`/v1/sessions/${r.sessionId}/messages`)).json()) as {
      messages: { role: string; content: string }[];
    };
    expect(parent.messages.find((m) => m.role === 'tool')?.content).toContain(childSession.split(':').at(-1));
    expect(stops.at(-1)).toMatchObject({ sessionId: r.sessionId, childSessionId: childSession, status: 'ok' });
  });

  it('refuses a subagent that tries to spawn', async () => {
    const r = await chat('[tool:spawn {"task":"[tool:spawn {\\"task\\":\\"deeper\\"}]"}]');
    expect(report(r.reply).result).toBe('tool said: error: a subagent cannot start subagents');
    expect(h.llm.requests.some((q) => q.body.messages.at(-1)?.content === 'deeper')).toBe(false);
  });

  it('refuses when allowAgents is empty', async () => {
    const r = await chat('[tool:spawn {"task":"anything"}]', { agentId: 'closed' });
    expect(r.reply).toBe('tool said: error: agent "closed" may not start subagents (subagents.allow_agents is empty)');
  });

  it('enforces the per-session limit', async () => {
    const first = await chat('[tool:spawn {"task":"one"}]');
    const second = await chat('[tool:spawn {"task":"two"}]', { sessionId: first.sessionId });
    expect(report(second.reply).status).toBe('ok');
    const third = await chat('[tool:spawn {"task":"three"}]', { sessionId: first.sessionId });
    expect(third.reply).toBe('tool said: error: this session already started 2 subagents (limit 2)');
  });

  it('cancels the child within a second when the parent is cancelled', async () => {
    const controller = new AbortController();
    const res = await h.api('/v1/chat', {
      json: { message: '[tool:spawn {"task":"a very slow task"}]', stream: true },
      signal: controller.signal,
    });
    const reading = readSse(res).catch(() => undefined);
    const startedAt = Date.now();
    while (!h.llm.requests.some((q) => q.body.messages.at(-1)?.content === 'a very slow task')) {
      if (Date.now() - startedAt > 5_000) throw new Error('the child never called the model');
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = stops.length;
    const abortedAt = Date.now();
    controller.abort();
    await reading;
    while (stops.length === before && Date.now() - abortedAt < 1_000) await new Promise((r) => setTimeout(r, 10));
    expect(stops.length).toBe(before + 1);
    expect(stops.at(-1)).toMatchObject({ status: 'cancelled' });
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
  });
});
