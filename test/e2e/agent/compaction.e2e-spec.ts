import { AgentService } from '@nestclaw/agent';
import { countChatTokens } from '@nestclaw/common';
import { DatabaseService } from '@nestclaw/db';
import { HookRegistry, PreCompactEvent } from '@nestclaw/tool';
import { fakeSummarizer, isSummaryRequest } from '../../fixtures/fake-summarizer';
import { Harness, startHarness } from '../../support/gateway-harness';

const WINDOW = 3000;

interface Row {
  id: string;
  stage: number;
  from_seq: number;
  to_seq: number;
  summary: string;
  merged_into: string | null;
}

describe('staged compaction of long sessions', () => {
  let h: Harness;
  let failMain = 0;
  const preCompact: PreCompactEvent[] = [];

  beforeAll(async () => {
    h = await startHarness({
      model: { context_window: WINDOW },
      config: {
        agents: { default: { tools: ['current_time', 'skill_read'] }, windowed: { tools: [], history_limit: 40 } },
      },
    });
    h.llm.contextWindow = WINDOW;
    h.llm.respond = (body) => {
      const summary = fakeSummarizer(body);
      if (summary) return summary;
      if (failMain > 0) {
        failMain--;
        return { kind: 'error', status: 400, message: `This model's maximum context length is ${WINDOW} tokens.` };
      }
      return undefined;
    };
    h.gateway.app.get(HookRegistry).on('PreCompact', (e) => void preCompact.push(e));
  });
  afterAll(() => h.stop());

  const records = async (sessionId: string) =>
    (
      await h.gateway.app
        .get(DatabaseService)
        .pool.query<Row>(
          `SELECT id::text, stage, from_seq, to_seq, summary, merged_into::text FROM compactions WHERE session_id = $1 ORDER BY stage, from_seq`,
          [sessionId],
        )
    ).rows;

  async function turn(message: string, sessionId?: string, agentId?: string) {
    const res = await h.api('/v1/chat', { json: { message, sessionId, agentId } });
    const body = (await res.json()) as { sessionId: string; reply: string; error?: { code: string; message: string } };
    return { status: res.status, ...body };
  }

  const filler = (i: number) => `Turn ${i}: here is some ordinary chat about the weather, lunch and the news of the day, nothing to keep.`;

  it('keeps a 300-turn session under the window, summarising every message once per stage, and a fact from turn 3 reaches turn 300', async () => {
    let sessionId: string | undefined;
    for (let i = 1; i <= 300; i++) {
      const r = await turn(i === 3 ? 'FACT: my cat is called Mochi' : filler(i), sessionId);
      expect(r.status).toBe(200);
      sessionId = r.sessionId;
    }
    // Every request the model saw fit its window (the fake refuses bigger ones, so none failed).
    expect(h.llm.maxPromptTokens).toBeLessThanOrEqual(WINDOW);
    const main = h.llm.requests.filter((r) => !isSummaryRequest(r.body));
    const last = main[main.length - 1].body;
    expect(last.messages[last.messages.length - 1].content).toBe(filler(300));
    expect(last.messages[0].content).toContain('FACT: my cat is called Mochi');
    // Within the 0.75 share, give or take the wire format of the tool definitions.
    expect(
      countChatTokens(
        last.messages.map((m) => ({ content: m.content })),
        last.tools,
      ),
    ).toBeLessThanOrEqual(WINDOW * 0.78);

    const rows = await records(sessionId!);
    const stage1 = rows.filter((r) => r.stage === 1);
    const stage2 = rows.filter((r) => r.stage === 2);
    expect(stage1.length).toBeGreaterThan(3);
    expect(stage2.length).toBeGreaterThanOrEqual(1);
    // Stage 1 covers messages 1..n exactly once: contiguous, no overlap.
    stage1.forEach((r, i) => expect(r.from_seq).toBe(i === 0 ? 1 : stage1[i - 1].to_seq + 1));
    // Stage 2 covers the stage-1 summaries it merged exactly once, and each stage-1 summary at most once.
    for (const m of stage2) {
      const children = stage1.filter((r) => r.merged_into === m.id);
      expect(children.length).toBeGreaterThanOrEqual(2);
      expect([m.from_seq, m.to_seq]).toEqual([children[0].from_seq, children[children.length - 1].to_seq]);
      children.forEach((c, i) => i > 0 && expect(c.from_seq).toBe(children[i - 1].to_seq + 1));
    }
    // The PreCompact hook saw each summarised range once, in order.
    const ranges = preCompact.filter((e) => e.sessionId === sessionId);
    ranges.forEach((e, i) => expect(e.fromSeq).toBe(i === 0 ? 1 : ranges[i - 1].toSeq + 1));
    expect(ranges.at(-1)!.toSeq).toBe(stage1.at(-1)!.to_seq);
  });

  it("closes the history window's gap every few turns, not on every turn, and still summarises each message once", async () => {
    // Short turns, far below the token budget: only history_limit (40 messages here) makes older turns leave the window.
    let sessionId: string | undefined;
    for (let i = 1; i <= 60; i++) {
      const r = await turn(`short ${i}`, sessionId, 'windowed');
      expect(r.status).toBe(200);
      sessionId = r.sessionId;
    }
    const ranges = preCompact.filter((e) => e.sessionId === sessionId);
    // 120 messages, 40 in the window: the gap opens at turn 21. Each time, half the window stays
    // verbatim, so the next gap opens 10 turns later: 4 summaries, where each turn used to make one (40).
    expect(ranges.length).toBeGreaterThanOrEqual(3);
    expect(ranges.length).toBeLessThanOrEqual(5);
    ranges.forEach((e, i) => expect(e.fromSeq).toBe(i === 0 ? 1 : ranges[i - 1].toSeq + 1));
    // Nothing was dropped: the last summary reaches the oldest message still in the window.
    const main = h.llm.requests.filter((r) => !isSummaryRequest(r.body));
    const last = main[main.length - 1].body;
    const verbatim = last.messages.filter((m) => m.role === 'user').map((m) => Number(/^short (\d+)$/.exec(m.content ?? '')?.[1]));
    expect(verbatim.at(-1)).toBe(60);
    expect(verbatim[0]).toBe(Math.ceil((ranges.at(-1)!.toSeq + 1) / 2));
  });

  it('compacts once and retries when the model answers context_length_exceeded', async () => {
    const first = await turn('FACT: the meeting is on Friday');
    for (let i = 0; i < 3; i++) await turn(filler(i), first.sessionId);
    failMain = 1;
    const before = h.llm.requests.length;
    const r = await turn('what day is the meeting?', first.sessionId);
    expect(r.status).toBe(200);
    const sent = h.llm.requests.slice(before);
    expect(sent.map((q) => (isSummaryRequest(q.body) ? 'summary' : 'main'))).toEqual(['main', 'summary', 'main']);
    const retry = sent[2].body.messages;
    expect(retry[0].content).toContain('FACT: the meeting is on Friday');
    // Everything before this turn is summarised, so the retry carries no verbatim history.
    expect(retry.slice(1).map((m) => m.content)).toEqual(['what day is the meeting?']);
    const rows = await records(first.sessionId);
    expect(rows.map((x) => [x.stage, x.from_seq, x.to_seq])).toEqual([[1, 1, 8]]);
    expect(preCompact.at(-1)).toMatchObject({ sessionId: first.sessionId, reason: 'context_length', fromSeq: 1, toSeq: 8 });
  });

  it('surfaces a clear error when the model refuses again after compacting', async () => {
    const first = await turn('hello there');
    await turn(filler(1), first.sessionId);
    failMain = 2;
    const r = await turn('and again', first.sessionId);
    expect(r.status).toBe(400);
    expect(r.error?.code).toBe('context_length_exceeded');
    expect(r.error?.message).toContain('even after compacting');
    expect(failMain).toBe(0);
    const { messages } = (await (await h.api(`/v1/sessions/${first.sessionId}/messages`)).json()) as { messages: { status: string }[] };
    expect(messages.at(-1)!.status).toBe('error');
  });

  it('POST /v1/sessions/:id/compact summarises older turns now and keeps the last one verbatim', async () => {
    const first = await turn('FACT: the password hint is blue');
    for (let i = 0; i < 4; i++) await turn(filler(i), first.sessionId);
    const res = await h.api(`/v1/sessions/${first.sessionId}/compact`, { method: 'POST' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { summarisedMessages: number; usage: { inputTokens: number } };
    expect(body.summarisedMessages).toBe(8);
    expect(body.usage.inputTokens).toBeGreaterThan(0);
    expect((await records(first.sessionId)).map((x) => [x.stage, x.from_seq, x.to_seq])).toEqual([[1, 1, 8]]);
    const again = await (await h.api(`/v1/sessions/${first.sessionId}/compact`, { method: 'POST' })).json();
    expect(again).toMatchObject({ summarisedMessages: 0 });
    await turn('next', first.sessionId);
    const last = h.llm.requests[h.llm.requests.length - 1].body.messages;
    expect(last[0].content).toContain('FACT: the password hint is blue');
    expect(last.slice(1).map((m) => m.content)).toEqual([filler(3), `echo: ${filler(3)}`, 'next']);
  });

  it('answers 404 for compacting a session that does not exist', async () => {
    const res = await h.api('/v1/sessions/00000000-0000-4000-8000-000000000000/compact', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
    expect(h.gateway.app.get(AgentService)).toBeDefined();
  });
});
