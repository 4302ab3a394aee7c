import type { Browser, Page } from 'playwright-core';
import { eventually } from '../../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, a11yViolationsInThemesAndLanguages, signInThroughForm } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';

// What page.evaluate callbacks touch: this project's TypeScript lib has no DOM.
declare const window: { notReloaded?: boolean };

interface SessionSummary {
  id: string;
  agentId: string;
  channel: string;
  running: boolean;
}

/**
 * Session search and filters: the API (`q` over ids, titles and what was said, in any language; a `%`
 * or `_` is a character, not a wildcard; `channel` and `agent`; `running` while a turn runs) and the
 * Sessions page following the search as it is typed, in Debian's Chromium against a real gateway.
 */
describeWithHostTools(['chromium'], 'control UI session search in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const ids: Record<string, string> = {};

  const chat = async (name: string, message: string, agentId?: string) => {
    const res = await h.api('/v1/chat', { json: { message, ...(agentId ? { agentId } : {}) } });
    expect(res.status).toBe(200);
    ids[name] = ((await res.json()) as { sessionId: string }).sessionId;
  };
  const search = async (query: string) =>
    ((await (await h.api(`/v1/sessions?${query}`)).json()) as { sessions: SessionSummary[] }).sessions.map((s) => s.id).sort();

  beforeAll(async () => {
    h = await startHarness({ config: { agents: { coder: { system_prompt: 'You are the coder agent.' } } } });
    await chat('beijing', '明天北京的天气怎么样？');
    await chat('percent', 'is a 100% match possible');
    await chat('underscore', 'snake_case or camelCase');
    await chat('coder', 'refactor this function', 'coder');
    browser = await launchChromium(tools.chromium!);
    ({ page, errors } = await recordedPage(await browser.newContext({ locale: 'en-US' })));
    await signInThroughForm(page, h.gateway.url, TEST_TOKEN);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('finds sessions by what was said (Chinese too), by id prefix, by channel and by agent; wildcards are characters', async () => {
    expect(await search(`q=${encodeURIComponent('北京')}`)).toEqual([ids.beijing]);
    expect(await search(`q=${encodeURIComponent('ECHO: 明天')}`)).toEqual([ids.beijing]);
    expect(await search(`q=${encodeURIComponent('100%')}`)).toEqual([ids.percent]);
    expect(await search(`q=${encodeURIComponent('%')}`)).toEqual([ids.percent]);
    expect(await search(`q=${encodeURIComponent('_')}`)).toEqual([ids.underscore]);
    expect(await search(`q=${ids.coder.slice(0, 12)}`)).toEqual([ids.coder]);
    expect(await search('agent=coder')).toEqual([ids.coder]);
    expect(await search(`q=${encodeURIComponent('北京')}&agent=coder`)).toEqual([]);
    const all = await search('limit=50');
    expect(all).toHaveLength(4);
    const { sessions } = (await (await h.api('/v1/sessions')).json()) as { sessions: SessionSummary[] };
    expect(await search(`channel=${sessions[0].channel}`)).toEqual(all);
    expect(await search('channel=nowhere')).toEqual([]);
    for (const bad of ['q=', `q=${'x'.repeat(201)}`, 'channel=', `agent=${'a'.repeat(65)}`]) {
      expect({ bad, status: (await h.api(`/v1/sessions?${bad}`)).status }).toEqual({ bad, status: 400 });
    }
  });

  it('marks a session running while its turn runs, and idle after', async () => {
    h.llm.enqueue({ kind: 'text', text: 'a slow answer', delayMs: 2_500 });
    const slow = h.api('/v1/chat', { json: { message: 'take your time', sessionId: ids.percent } });
    await eventually('the session to show as running', async () => {
      const { sessions } = (await (await h.api('/v1/sessions')).json()) as { sessions: SessionSummary[] };
      return sessions.find((s) => s.id === ids.percent)?.running === true;
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click();
    await page.locator('tbody tr', { has: page.locator('.state-running') }).waitFor();
    expect(await page.locator('tbody tr .state-running').count()).toBe(1);
    expect((await slow).status).toBe(200);
    const { sessions } = (await (await h.api('/v1/sessions')).json()) as { sessions: SessionSummary[] };
    expect(sessions.find((s) => s.id === ids.percent)?.running).toBe(false);
  });

  for (const [lang, ui] of [
    ['en', { nav: 'Sessions', search: 'Search', none: 'No session matches.' }],
    ['zh-CN', { nav: '会话', search: '搜索', none: '没有匹配的会话。' }],
  ] as const) {
    const agentFilter = () => page.locator('.session-filters select').nth(1);
    it(`${lang}: narrows the list as a Chinese search is typed, filters by agent, and says when nothing matches`, async () => {
      await page.locator('.settings select').first().selectOption(lang);
      await page.locator('header nav').getByRole('link', { name: ui.nav }).click();
      const rows = page.locator('tbody tr');
      await eventually('all four sessions', async () => (await rows.count()) === 4);
      const box = page.getByRole('searchbox', { name: ui.search });
      await box.fill('');
      await box.pressSequentially('北京', { delay: 50 });
      await eventually('one session left', async () => (await rows.count()) === 1);
      await rows.first().getByRole('button').click();
      await page.locator('.transcript-panel .message.user', { hasText: '明天北京的天气怎么样？' }).waitFor();
      await agentFilter().selectOption('coder');
      await page.getByText(ui.none).waitFor();
      await box.fill('');
      await eventually(
        'the coder session alone',
        async () => (await rows.count()) === 1 && (await rows.first().textContent())!.includes('coder'),
      );
      await agentFilter().selectOption('');
      await eventually('all four again', async () => (await rows.count()) === 4);
    });
  }

  it('follows turns live without a reload: a new session appears running, then idle with its messages', async () => {
    await page.locator('.settings select').first().selectOption('en');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click();
    const rows = page.locator('tbody tr');
    await eventually('the four sessions', async () => (await rows.count()) === 4);
    // A mark on this document: a reload would start a new one without it.
    await page.evaluate(() => {
      window.notReloaded = true;
    });
    h.llm.enqueue({ kind: 'text', text: 'a live answer', delayMs: 2_500 });
    const slow = h.api('/v1/chat', { json: { message: 'watch this one live' } });
    const running = page.locator('tbody tr', { has: page.locator('.state-running') });
    await running.waitFor({ timeout: 5_000 });
    expect(await rows.count()).toBe(5);
    expect(await running.locator('td').nth(4).textContent()).toBe('1');
    const { sessionId } = (await (await slow).json()) as { sessionId: string };
    const { sessions } = (await (await h.api('/v1/sessions?limit=1')).json()) as {
      sessions: (SessionSummary & { title: string | null })[];
    };
    expect(sessions[0].id).toBe(sessionId);
    const row = page.locator('tbody tr', {
      has: page.getByRole('button', { name: `Open transcript of ${sessions[0].title ?? sessionId}` }),
    });
    await eventually(
      'the row idle with the answer counted',
      async () => (await row.locator('.state').textContent()) === 'idle' && (await row.locator('td').nth(4).textContent()) === '2',
    );
    expect(await page.locator('tbody tr .state-running').count()).toBe(0);
    expect(await page.evaluate(() => window.notReloaded)).toBe(true);
    ids.live = sessionId;
  });

  it('has no serious or critical axe-core violations with a search typed, in both themes and languages', async () => {
    const found = await a11yViolationsInThemesAndLanguages(browser, page, h.gateway.url, '/sessions', async (p) => {
      await p.getByRole('searchbox').fill('100%');
      await p.locator('tbody tr').first().waitFor();
    });
    expect(Object.values(found).flat()).toEqual([]);
  }, 60_000);

  it('had no script errors or CSP violations', async () => {
    expect(errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
  });
});
