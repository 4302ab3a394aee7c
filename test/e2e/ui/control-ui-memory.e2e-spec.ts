import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, a11yViolationsInThemesAndLanguages, signInThroughForm } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';

/** What each test reads or clicks, in each language (the strings of apps/ui/src/i18n). */
const UI = {
  en: {
    nav: 'Memory',
    query: 'Search for',
    search: 'Search',
    view: (text: string) => `View memory “${text}”`,
    forget: (text: string) => `Forget memory “${text}”`,
    forgetForGood: 'Forget for good',
    forgotten: 'The memory was forgotten.',
    none: 'No memory matches.',
    person: 'Person',
    rebuild: 'Rebuild index',
    rebuilt: 'Rebuilt:',
    memories: 'Memories',
  },
  'zh-CN': {
    nav: '记忆',
    query: '搜索内容',
    search: '搜索',
    view: (text: string) => `查看记忆“${text}”`,
    forget: (text: string) => `忘记记忆“${text}”`,
    forgetForGood: '永久忘记',
    forgotten: '这条记忆已被忘记。',
    none: '没有匹配的记忆。',
    person: '人员',
    rebuild: '重建索引',
    rebuilt: '重建完成：',
    memories: '记忆条数',
  },
} as const;
type Language = keyof typeof UI;

// What page.evaluate callbacks touch: this project's TypeScript lib has no DOM.
declare const document: { activeElement: { textContent: string | null } | null };

/** A Chinese fact and a Chinese query sharing no Latin marker, one per language run. */
const CHINESE = {
  en: { fact: '我家的猫咪叫小花，最喜欢吃鱼干', query: '猫咪小花' },
  'zh-CN': { fact: '周末打算去黄山看日出，记得带雨衣', query: '黄山日出' },
} as const;

interface SearchAnswer {
  results: { id: string; content: string }[];
}

/**
 * The control UI's Memory page in Debian's Chromium against a real gateway: memories stored through
 * the API are found on the page (a Chinese one by a Chinese query), read in full, and one forgotten
 * from the page is gone from the page's results and from the API; in English and 简体中文.
 */
describeWithHostTools(['chromium'], 'control UI memory page in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    browser = await launchChromium(tools.chromium!);
    ({ page, errors } = await recordedPage(await browser.newContext({ locale: 'en-US' })));
    await signInThroughForm(page, h.gateway.url, TEST_TOKEN);
    // From here on: before sign-in the page's session probe is answered 401, which Chromium logs.
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  const store = async (content: string) => {
    const res = await h.api('/v1/memory', { json: { content } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const apiSearch = async (q: string) =>
    ((await (await h.api(`/v1/memory/search?mode=keyword&k=20&q=${encodeURIComponent(q)}`)).json()) as SearchAnswer).results;
  const searchable = (q: string, content: string) =>
    eventually(`"${content}" found by "${q}"`, async () => (await apiSearch(q)).some((r) => r.content === content), 20_000);
  const open = async (lang: Language) => {
    await page.locator('.settings select').first().selectOption(lang);
    await page.locator('header nav').getByRole('link', { name: UI[lang].nav }).click();
    await page.getByRole('heading', { level: 1, name: UI[lang].nav }).waitFor();
  };
  const searchOnPage = async (lang: Language, q: string) => {
    await page.getByLabel(UI[lang].query).fill(q);
    await page.getByRole('button', { name: UI[lang].search, exact: true }).click();
  };
  const result = (content: string) => page.locator('.memory-result', { hasText: content });

  for (const lang of ['en', 'zh-CN'] as const) {
    const ui = UI[lang];

    it(`${lang}: finds a Chinese memory by a Chinese query and shows it in full, as text`, async () => {
      const marker = randomBytes(4).toString('hex');
      const fact = `${CHINESE[lang].fact} (${marker})`;
      const id = await store(fact);
      await searchable(CHINESE[lang].query, fact);

      await open(lang);
      await searchOnPage(lang, CHINESE[lang].query);
      await result(fact).waitFor();
      await page.getByRole('button', { name: ui.view(fact) }).click();
      const detail = page.locator('.memory-detail');
      await detail.locator('.memory-content').filter({ hasText: fact }).waitFor();
      expect(await detail.locator('dd.mono').first().textContent()).toBe(id);
      expect(await detail.textContent()).toContain('owner');
    });

    it(`${lang}: forgets a memory from the page after a confirmation; it is gone from the results and from the API`, async () => {
      const marker = `ui${randomBytes(5).toString('hex')}`;
      const keep = `Keep this: the spare key ${marker} is under the blue pot <img src=x onerror="window.__pwned=1">`;
      const doomed = `Forget this: the old wifi password ${marker} was hunter2`;
      await store(keep);
      const doomedId = await store(doomed);
      await searchable(marker, keep);
      await searchable(marker, doomed);

      await open(lang);
      await searchOnPage(lang, marker);
      await result(doomed).waitFor();
      await result(keep).waitFor();
      // Untrusted content is text: the markup shows as written and never becomes an element.
      expect(await result(keep).locator('img').count()).toBe(0);

      await result(doomed)
        .getByRole('button', { name: ui.forget(doomed.slice(0, 60)) })
        .click();
      // The keyboard lands on the confirmation: Enter forgets.
      await page.waitForFunction((label) => document.activeElement?.textContent === label, ui.forgetForGood);
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: ui.forgotten }).waitFor();
      await result(doomed).waitFor({ state: 'detached' });
      await result(keep).waitFor();

      expect((await h.api(`/v1/memory/${doomedId}`)).status).toBe(404);
      expect((await apiSearch(marker)).map((r) => r.content)).toEqual([keep]);
      expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    });
  }

  it('lists the newest memories without a query, and pages to older ones', async () => {
    const marker = randomBytes(4).toString('hex');
    const facts: string[] = [];
    // More than one page (20) of them, so "Show older" has something to show.
    for (let i = 0; i < 22; i++) facts.push(`Listed fact ${i} ${marker}`);
    for (const f of facts) await store(f);
    await open('en');
    await searchOnPage('en', '');
    await page.getByRole('heading', { level: 2, name: 'Newest memories' }).waitFor();
    await page.locator('.memory-result').first().filter({ hasText: facts[21] }).waitFor();
    expect(await page.locator('.memory-result').count()).toBe(20);
    expect(await page.locator('.memory-result', { hasText: facts[1] }).count()).toBe(0);
    await page.getByRole('button', { name: 'Show older' }).click();
    await page.locator('.memory-result', { hasText: facts[0] }).waitFor();
    await page.locator('.memory-result', { hasText: facts[1] }).waitFor();
  });

  it('says when nothing matches, and offers an admin session the person field and the rebuild', async () => {
    await open('en');
    await searchOnPage('en', `nothing${randomBytes(6).toString('hex')}`);
    await page.getByText(UI.en.none).waitFor();
    // The owner token carries admin: it may look at another person's memories.
    expect(await page.getByLabel(UI.en.person).count()).toBe(1);
    expect(await page.getByRole('button', { name: UI.en.rebuild }).count()).toBe(1);
  });

  it("shows a chat-only session its own person's memories, its own counts, and no admin controls", async () => {
    const marker = `own${randomBytes(5).toString('hex')}`;
    const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'memory-phone' }),
    });
    const { token } = (await paired.json()) as { token: string };
    const mine = `My bike lock is ${marker} 4711`;
    const res = await fetch(`${h.gateway.url}/v1/memory`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: mine }),
    });
    expect(res.status).toBe(201);
    const ownersOnly = `The owner's safe code ${marker} 9999`;
    await store(ownersOnly);
    await searchable(marker, ownersOnly);

    const context = await browser.newContext({ locale: 'en-US' });
    const phone = await context.newPage();
    await signInThroughForm(phone, h.gateway.url, token);
    await phone.locator('header nav').getByRole('link', { name: UI.en.nav }).click();
    await phone.getByLabel(UI.en.query).fill(marker);
    // Indexed in the background: search again until it is there. Each try waits a few seconds for the
    // results, so a search lost on a starved runner is clicked again (one 30 s wait outlived the 10 s bound).
    await eventually(
      'the own memory on the page',
      async () => {
        await phone.getByRole('button', { name: UI.en.search, exact: true }).click();
        await phone.getByRole('heading', { name: 'Results' }).waitFor({ timeout: 5_000 });
        return (await phone.locator('.memory-result', { hasText: mine }).count()) === 1;
      },
      30_000,
    );
    expect(await phone.locator('.memory-result').allTextContents()).not.toContainEqual(expect.stringContaining(ownersOnly));
    await phone.locator('.memory-status').waitFor();
    expect(await phone.locator('.memory-status div', { hasText: UI.en.memories }).locator('dd').textContent()).toBe('1');
    expect(await phone.getByLabel(UI.en.person).count()).toBe(0);
    expect(await phone.getByRole('button', { name: UI.en.rebuild }).count()).toBe(0);
    await context.close();
  }, 60_000);

  it('shows the index status and rebuilds the index with its progress', async () => {
    await open('en');
    const memories = page.locator('.memory-status div', { hasText: UI.en.memories }).locator('dd');
    const status = (await (await h.api('/v1/memory/status')).json()) as { memories: number };
    await page.getByRole('button', { name: 'Refresh status' }).click();
    await eventually('the status counts', async () => (await memories.textContent()) === String(status.memories));
    const progress = page.locator('.memory-reindex');
    // The rebuild at start-up is done already; the page shows only the one it starts or watches.
    expect(await progress.count()).toBe(0);
    await page.getByRole('button', { name: UI.en.rebuild }).click();
    await progress.filter({ hasText: UI.en.rebuilt }).waitFor({ timeout: 30_000 });
    const after = (await (await h.api('/admin/reindex')).json()) as { state: string; done: number; total: number };
    expect(after.state).toBe('done');
    expect(await progress.textContent()).toContain(`${after.done} of ${after.total}`);
  }, 60_000);

  it('has no serious or critical axe-core violations on the page with results, in both themes and languages', async () => {
    const marker = `axe${randomBytes(5).toString('hex')}`;
    await store(`An audited memory ${marker}`);
    await store(`审计用的记忆 ${marker}`);
    await searchable(marker, `An audited memory ${marker}`);
    const found = await a11yViolationsInThemesAndLanguages(browser, page, h.gateway.url, '/memory', async (p, lang) => {
      await p.getByLabel(UI[lang].query).fill(marker);
      await p.getByRole('button', { name: UI[lang].search, exact: true }).click();
      await p.locator('.memory-result').nth(1).waitFor();
      // The confirmation open too, so its buttons are audited.
      await p.locator('.memory-result').first().locator('button.danger').click();
      await p.getByRole('button', { name: UI[lang].forgetForGood }).waitFor();
      await p.locator('.memory-status').waitFor();
    });
    expect(Object.values(found).flat()).toEqual([]);
  }, 60_000);

  it('had no script errors, CSP violations or console errors', async () => {
    expect(errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
