import { countTokens } from '@nestclaw/common';
import { isSummaryRequest } from '../../fixtures/fake-summarizer';
import { Harness, startHarness } from '../../support/gateway-harness';

const WINDOW = 3000;
/** The longest summary compaction asks for at this window (8 %), see contextBudget. */
const MAX_SUMMARY = 240;

/** A summariser that ignores max_tokens must not break the session: its summary is cut to budget. */
describe('compaction with a summariser that ignores max_tokens', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ model: { context_window: WINDOW } });
    h.llm.contextWindow = WINDOW;
    // Far longer than asked (and longer than the window), in Chinese and English.
    h.llm.respond = (body) =>
      isSummaryRequest(body)
        ? {
            kind: 'text',
            text: Array.from({ length: 400 }, (_, i) => `- 第${i}条笔记：用户聊了天气和午饭 (note ${i}: small talk)`).join('\n'),
          }
        : undefined;
  });
  afterAll(() => h.stop());

  it('answers every later turn of the session, with each stored summary cut to its token budget', async () => {
    let sessionId: string | undefined;
    const statuses: number[] = [];
    for (let i = 1; i <= 40; i++) {
      const res = await h.api('/v1/chat', {
        json: { message: `Turn ${i}: ordinary chat about the weather, lunch and the news of the day, nothing to keep.`, sessionId },
      });
      statuses.push(res.status);
      sessionId = ((await res.json()) as { sessionId: string }).sessionId ?? sessionId;
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const rows = await h.query<{ summary: string }>(`SELECT summary FROM compactions WHERE session_id = $1`, [sessionId]);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(countTokens(r.summary)).toBeLessThanOrEqual(MAX_SUMMARY);
    expect(rows[0].summary).toContain('第0条笔记');
    expect(h.llm.maxPromptTokens).toBeLessThanOrEqual(WINDOW);
  });
});
