import type { Browser, Locator, Page } from 'playwright-core';
import { eventually } from '../../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, signInThroughForm } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';

// What the callbacks run in the page touch: this project's TypeScript lib has no DOM.
declare const window: { __longTasks: number[] };
declare const PerformanceObserver: new (cb: (list: { getEntries(): { duration: number }[] }) => void) => {
  observe(o: object): void;
};

/** Turns of the seeded conversation: a user message and an answer each, every 25th with a tool call. */
const TURNS = 5_000;
/** apps/ui/src/chat/transcript-pages.ts */
const PAGE = 50;

interface StoredMessage {
  seq: number;
  role: string;
  content: string;
}

/**
 * A 10,000-message conversation in the control UI (Debian's Chromium, real gateway and database): it
 * opens at its newest page, the reader scrolls back page by page and stays on the message they were
 * reading, in the Sessions transcript and in the chat; the long tasks of the main thread are reported.
 */
describeWithHostTools(['chromium'], 'control UI with a 10,000-message transcript in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let sessionId: string;
  let lastSeq: number;

  beforeAll(async () => {
    h = await startHarness();
    const first = await h.api('/v1/chat', { json: { message: 'the first message' } });
    sessionId = ((await first.json()) as { sessionId: string }).sessionId;
    // 10,000 more messages in one statement: user and assistant in turns, a tool call and its result every 25th turn.
    await h.query(
      `WITH turns AS (SELECT n, gen_random_uuid() AS turn_id FROM generate_series(1, $2::int) AS n)
       INSERT INTO messages (session_id, seq, turn_id, role, content, tool_calls, tool_call_id, tool_name, status)
       SELECT $1, 2 + (n - 1) * 2 + 1, turn_id, 'user', '第 ' || n || ' 个问题 question ' || n, NULL, NULL, NULL, 'ok' FROM turns
       UNION ALL
       SELECT $1, 2 + (n - 1) * 2 + 2, turn_id, 'assistant',
              CASE WHEN n % 25 = 0 THEN '' ELSE '**answer ' || n || '**: 回答 ' || n || E'\n\n- one\n- two' END,
              CASE WHEN n % 25 = 0 THEN jsonb_build_array(jsonb_build_object('id', 'call_' || n, 'name', 'current_time', 'arguments', '{}')) END,
              NULL, NULL, 'ok' FROM turns`,
      [sessionId, TURNS],
    );
    lastSeq = 2 + TURNS * 2;
    await h.query('UPDATE sessions SET last_seq = $2 WHERE id = $1', [sessionId, lastSeq]);
    browser = await launchChromium(tools.chromium!);
    const context = await browser.newContext({ locale: 'en-US' });
    ({ page, errors } = await recordedPage(context));
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({
        type: 'longtask',
        buffered: true,
      });
    });
    await signInThroughForm(page, h.gateway.url, TEST_TOKEN);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  const messages = async (query: string) =>
    ((await (await h.api(`/v1/sessions/${sessionId}/messages?${query}`)).json()) as { messages: StoredMessage[] }).messages;

  it('pages the transcript back from its newest message (before=end, then before=<seq>)', async () => {
    const newest = await messages(`before=end&limit=${PAGE}`);
    expect(newest.map((m) => m.seq)).toEqual(Array.from({ length: PAGE }, (_, i) => lastSeq - PAGE + 1 + i));
    const earlier = await messages(`before=${newest[0].seq}&limit=${PAGE}`);
    expect(earlier[earlier.length - 1].seq).toBe(newest[0].seq - 1);
    expect(earlier).toHaveLength(PAGE);
    expect((await messages('before=3&limit=10')).map((m) => m.seq)).toEqual([1, 2]);
    for (const bad of ['before=0', 'before=-1', 'before=x', 'after=1&before=5', 'before=end&limit=1001']) {
      const res = await h.api(`/v1/sessions/${sessionId}/messages?${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    }
  });

  /** Scrolls the transcript to its top `pages` times; each time the message that was first must still be in view after the page before it loads. */
  async function scrollBack(transcript: Locator, pages: number): Promise<void> {
    for (let i = 0; i < pages; i++) {
      const firstText = await transcript.locator('.message.user').first().textContent();
      await transcript.evaluate((el) => {
        (el as unknown as { scrollTop: number }).scrollTop = 0;
      });
      // The page before arrives above: the first message is an earlier one.
      await eventually(
        'the page before, above',
        async () => (await transcript.locator('.message.user').first().textContent()) !== firstText,
      );
      // The reader stays where they were: the message that was at the top is still in view.
      const held = transcript.locator('.message.user', { hasText: firstText! }).first();
      await expect(held.isVisible()).resolves.toBe(true);
      const box = await held.boundingBox();
      const view = await transcript.boundingBox();
      expect(box!.y + box!.height).toBeGreaterThan(view!.y);
      expect(box!.y).toBeLessThan(view!.y + view!.height);
    }
  }

  it('opens the Sessions transcript at its newest page and scrolls back page by page, keeping the reader in place', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click();
    const started = Date.now();
    await page
      .getByRole('button', { name: /^Open transcript of / })
      .first()
      .click();
    const transcript = page.locator('.transcript-panel .transcript');
    await transcript.locator('.message.user', { hasText: `question ${TURNS}` }).waitFor();
    const openedMs = Date.now() - started;
    // One page on screen, not ten thousand messages.
    expect(await transcript.locator('.message, .tool-card').count()).toBeLessThanOrEqual(PAGE);
    expect(await transcript.locator('.message.user', { hasText: 'the first message' }).count()).toBe(0);
    const opening = await page.evaluate(() => window.__longTasks.splice(0));
    await scrollBack(transcript, 5);
    expect(await transcript.locator('.tool-card', { hasText: 'current_time' }).count()).toBeGreaterThan(0);
    const scrolling = await page.evaluate(() => window.__longTasks.splice(0));
    // Windowed: six pages are loaded, but only the blocks near the reader (and the newest) are in the page.
    const inPage = await transcript.locator('.message, .tool-card').count();
    expect(await transcript.locator('.transcript-block').count()).toBe(6);
    expect(inPage).toBeLessThanOrEqual(4 * PAGE);
    // Back at the bottom: the newest message is there, the earliest loaded page is an empty box again.
    const earliest = await transcript.locator('.message.user').first().textContent();
    await transcript.evaluate((el) => {
      (el as unknown as { scrollTop: number; scrollHeight: number }).scrollTop = (el as unknown as { scrollHeight: number }).scrollHeight;
    });
    await transcript.locator('.message.user', { hasText: `question ${TURNS}` }).waitFor();
    await eventually(
      'the earliest page windowed out',
      async () => (await transcript.locator('.message.user', { hasText: earliest! }).count()) === 0,
    );
    const longest = (tasks: number[]) => Math.round(Math.max(0, ...tasks));
    // Reported, not asserted: the figure belongs to the machine as much as to the page (the closing note quotes it).
    process.stdout.write(
      `\n[control UI] 10,000-message transcript: opened in ${openedMs} ms (long tasks ${opening.length}, longest ${longest(opening)} ms); ` +
        `5 earlier pages loaded by scrolling (long tasks ${scrolling.length}, longest ${longest(scrolling)} ms); ${inPage} of ~${6 * PAGE} loaded messages in the page\n`,
    );
  }, 90_000);

  it('opens the same conversation in the chat at its newest message, and loads earlier pages from the button', async () => {
    await page.getByRole('button', { name: 'Continue in chat' }).click();
    const transcript = page.locator('main .transcript');
    await transcript.locator('.message.user', { hasText: `question ${TURNS}` }).waitFor();
    const before = await transcript.locator('.message.user').count();
    await transcript.getByRole('button', { name: 'Load earlier messages' }).click();
    await transcript.locator('.message.user').nth(before).waitFor({ state: 'attached' });
    // A new turn still lands at the bottom of the long conversation.
    const res = await h.api('/v1/chat', { json: { message: 'one more after ten thousand', sessionId } });
    expect(res.status).toBe(200);
    expect((await messages('before=end&limit=2')).map((m) => m.content)).toEqual([
      'one more after ten thousand',
      'echo: one more after ten thousand',
    ]);
  }, 60_000);

  it('had no script errors or CSP violations', async () => {
    expect(errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
  });
});
