import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '../../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, seriousA11yViolations, signInThroughForm, SocketLog } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';

// What the callbacks run in the page (page.evaluate) touch: this project's TypeScript lib has no DOM.
declare const window: { __pwned?: string };
declare const document: {
  cookie: string;
  documentElement: { lang: string; dataset: { theme?: string } };
  querySelectorAll(selector: string): { length: number };
  getElementById(id: string): unknown;
};
declare const localStorage: object;
declare const sessionStorage: object;
declare const performance: { now(): number };
declare const KeyboardEvent: new (type: string, init: object) => object;
declare const CompositionEvent: new (type: string, init: object) => object;

/** The first screen's JavaScript budget (issue 25): gzipped, every script the chat page loads. */
const FIRST_SCREEN_JS_BUDGET = 200 * 1024;
const UI_DIR = join(__dirname, '..', '..', '..', 'dist', 'ui');

/**
 * The control UI (apps/ui) in Debian's Chromium against a real gateway and the fake model: signing in
 * through the form, a streamed Markdown answer, an approval decided inline, hostile model output, an
 * IME composition, both languages, axe-core on every page, and the size and first-render figures.
 */
describeWithHostTools(['chromium'], 'control UI in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let socket: SocketLog;
  let errors: string[];

  /** Sends `message` from the composer and waits for the chat's done (or error) frame. */
  const chat = async (message: string) => {
    const before = socket.received.length;
    await page.getByLabel(/^(Message|消息)$/).fill(message);
    await page.getByLabel(/^(Message|消息)$/).press('Enter');
    return eventually(
      'the chat to finish',
      () => socket.received.slice(before).find((f) => f.type === 'done' || f.type === 'error'),
      20_000,
    );
  };

  beforeAll(async () => {
    if (!existsSync(join(UI_DIR, 'index.html'))) throw new Error('dist/ui is missing: run `node scripts/build.js --if-stale` first');
    h = await startHarness();
    browser = await launchChromium(tools.chromium!);
    context = await browser.newContext({ locale: 'en-US' });
    ({ page, socket, errors } = await recordedPage(context));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('serves index.html uncached for the app paths and hashed assets cached for a year', async () => {
    for (const path of ['/', '/approvals', '/sessions', '/channels', '/usage']) {
      const res = await fetch(`${h.gateway.url}${path}`);
      expect([path, res.status, res.headers.get('cache-control')]).toEqual([path, 200, 'no-cache']);
      expect(await res.text()).toContain('<div id="app"></div>');
    }
    const html = readFileSync(join(UI_DIR, 'index.html'), 'utf8');
    const asset = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)![1];
    const res = await fetch(`${h.gateway.url}${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${h.gateway.url}/assets/..%2Fconfig.yaml`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  it('signs in with the token typed into the form and keeps no token in the page, its storage or its URL', async () => {
    await signInThroughForm(page, h.gateway.url, TEST_TOKEN);
    expect(page.url()).not.toContain(TEST_TOKEN);
    const stored = await page.evaluate(() =>
      JSON.stringify({ cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage } }),
    );
    expect(stored).not.toContain(TEST_TOKEN);
    const cookies = await context.cookies();
    expect(cookies.length).toBeGreaterThan(0);
    expect(cookies.every((c) => c.httpOnly && !c.value.includes(TEST_TOKEN))).toBe(true);
  });

  it('signs in from a login link, taking the one-time code out of the address bar', async () => {
    const { code } = (await (await h.api('/v1/auth/login-codes', { json: {} })).json()) as { code: string };
    const other = await browser.newContext();
    const linked = await other.newPage();
    await linked.goto(`${h.gateway.url}/#login=${code}`);
    await linked.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).waitFor();
    expect(linked.url()).toBe(`${h.gateway.url}/`);
    // Single use: the same link again lands on the sign-in form with the reason.
    const again = await other.newPage();
    await other.clearCookies();
    await again.goto(`${h.gateway.url}/#login=${code}`);
    await again
      .getByRole('alert')
      .getByText(/^Sign-in failed:/)
      .waitFor();
    expect(again.url()).toBe(`${h.gateway.url}/`);
    await other.close();
  });

  it('streams an answer over the WebSocket and renders it as Markdown', async () => {
    h.llm.enqueue({ kind: 'text', text: 'Here is **bold** and a [link](https://example.com/docs).\n\n- one\n- two', tokenDelayMs: 15 });
    const done = await chat('hello from the browser');
    expect(done.type).toBe('done');
    expect(socket.received.filter((f) => f.type === 'token').length).toBeGreaterThan(3);
    const answer = page.locator('.message.assistant').last();
    await expect(answer.locator('strong').textContent()).resolves.toBe('bold');
    await expect(answer.locator('a').getAttribute('href')).resolves.toBe('https://example.com/docs');
    await expect(answer.locator('li').count()).resolves.toBe(2);
  });

  it('shows a tool call needing approval with its full input, approves it inline, and the answer completes', async () => {
    const input = { path: 'ui-approved.txt', content: 'written after an approval in the browser' };
    const before = socket.received.length;
    await page.getByLabel('Message').fill(`save it [tool:file_write ${JSON.stringify(input)}]`);
    await page.getByLabel('Message').press('Enter');
    const card = page.locator('.approval-card');
    await card.getByRole('button', { name: 'Approve' }).waitFor();
    await expect(card.locator('pre').textContent()).resolves.toContain('written after an approval in the browser');
    await card.getByRole('button', { name: 'Approve' }).click();
    const done = await eventually(
      'the approved turn to finish',
      () => socket.received.slice(before).find((f) => f.type === 'done'),
      20_000,
    );
    expect(done.reply).toContain('wrote 40 bytes to ui-approved.txt');
    await page.locator('.message.assistant', { hasText: 'wrote 40 bytes to ui-approved.txt' }).waitFor();
    await card.getByText('Approved', { exact: true }).waitFor();
    const { approvals } = (await (await h.api('/v1/approvals?status=approved')).json()) as {
      approvals: { input: unknown; decidedBy: string }[];
    };
    expect(approvals.find((a) => JSON.stringify(a.input) === JSON.stringify(input))).toBeDefined();
  });

  it('renders hostile model output as inert text: no script runs and no such element exists', async () => {
    h.llm.enqueue({
      kind: 'text',
      text: [
        '<script>window.__pwned = "script"</script>',
        '<img src=x onerror="window.__pwned = \'img\'">',
        "[x](javascript:window.__pwned='link')",
        '<a href="javascript:window.__pwned=\'anchor\'">y</a>',
        "![z](javascript:window.__pwned='image')",
        '`<b>code</b>` and <iframe src="javascript:1"></iframe>',
      ].join('\n\n'),
    });
    const done = await chat('be hostile');
    expect(done.type).toBe('done');
    const answer = page.locator('.message.assistant').last();
    await expect(answer.textContent()).resolves.toContain('<script>window.__pwned = "script"</script>');
    // A click on what would have been the javascript: link must do nothing either.
    await answer.getByText('[x](javascript:', { exact: false }).click();
    const found = await page.evaluate(() => ({
      pwned: window.__pwned ?? null,
      elements: document.querySelectorAll('main script, main img, main iframe, main [onerror], main a[href^="javascript"]').length,
    }));
    expect(found).toEqual({ pwned: null, elements: 0 });
    expect(await cspViolations(page)).toEqual([]);
  });

  it('does not send on Enter while an input method is composing (Chinese input), and sends on the Enter after', async () => {
    const box = page.getByLabel('Message');
    await box.fill('你好');
    const chatsBefore = socket.sent.filter((f) => f.type === 'chat').length;
    await box.evaluate((el) => {
      el.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true, data: '' }));
      el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', isComposing: true, bubbles: true, cancelable: true }));
      el.dispatchEvent(new CompositionEvent('compositionend', { bubbles: true, data: '你好' }));
    });
    await expect(box.inputValue()).resolves.toBe('你好');
    const done = await chat('你好');
    const chats = socket.sent.filter((f) => f.type === 'chat').slice(chatsBefore);
    expect(chats.map((f) => f.message)).toEqual(['你好']);
    expect(done.reply).toBe('echo: 你好');
  });

  it('brings the conversation back after a reload (the session id is kept for the tab)', async () => {
    await page.reload();
    await page.locator('.message.assistant', { hasText: 'echo: 你好' }).waitFor();
    await page.locator('.tool-card', { hasText: 'file_write' }).waitFor();
  });

  it('re-attaches to the running turn after a reload in the middle of an answer: what was streamed, then the rest live, completed once', async () => {
    const text = 'a long answer that outlives the page '.repeat(12).trim();
    h.llm.enqueue({ kind: 'text', text, tokenDelayMs: 40 });
    const requests = h.llm.chatRequests;
    const before = socket.received.length;
    await page.getByLabel('Message').fill('a slow one');
    await page.getByLabel('Message').press('Enter');
    await eventually('a few streamed tokens', () => socket.received.slice(before).filter((f) => f.type === 'token').length > 3);
    await page.reload();
    // The reloaded page finds the turn still running, subscribes to the session, and reads the answer when it ends.
    await page.getByText('A reply is still being written in this session', { exact: false }).waitFor();
    // The answer's start, streamed before the reload, is shown while the turn still runs, and grows token by token.
    const streaming = page.locator('.message.assistant[aria-busy="true"]', { hasText: 'a long answer that outlives' });
    await streaming.waitFor();
    const shownFirst = (await streaming.innerText()).length;
    await eventually('the re-attached answer growing live', async () => (await streaming.innerText().catch(() => '')).length > shownFirst);
    await page.locator('.message.assistant', { hasText: text }).waitFor({ timeout: 20_000 });
    expect(await page.locator('.message.assistant', { hasText: 'a long answer that outlives the page' }).count()).toBe(1);
    expect(socket.sent.filter((f) => f.type === 'subscribe').length).toBeGreaterThan(0);
    expect(h.llm.chatRequests - requests).toBe(1);
    const rows = await h.query<{ status: string }>(`SELECT status FROM messages WHERE role = 'assistant' AND content = $1`, [text]);
    expect(rows).toEqual([{ status: expect.not.stringMatching(/interrupted/) }]);
  });

  it('switches to the dark theme and remembers it', async () => {
    await page.getByLabel('Theme').selectOption('dark');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.reload();
    await page.getByRole('heading', { name: 'Chat' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.getByLabel('Theme').selectOption('system');
  });

  it('shows every label in 简体中文 once chosen, and remembers the choice', async () => {
    await page.getByLabel('Language').selectOption('zh-CN');
    const nav = page.getByRole('navigation', { name: '主导航' });
    for (const label of ['对话', '审批', '会话']) await nav.getByRole('link', { name: label }).waitFor();
    await page.getByRole('button', { name: '退出登录' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: '对话' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await nav.getByRole('link', { name: '审批' }).click();
    await page.getByRole('heading', { name: '历史' }).waitFor();
    await page.getByLabel('语言').selectOption('en');
  });

  it('lists sessions and opens a transcript with its tool calls', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click();
    await page
      .getByRole('button', { name: /^Open transcript of / })
      .first()
      .click();
    const panel = page.locator('.transcript-panel');
    await panel.locator('.tool-card', { hasText: 'file_write' }).waitFor();
    await panel.locator('.message.user', { hasText: 'hello from the browser' }).waitFor();
  });

  it('has no serious or critical axe-core violations on any page, in both themes', async () => {
    // addScriptTag injects axe inline, which the page's own CSP refuses: a second context without it, same cookie.
    const audit = await browser.newContext({ bypassCSP: true, storageState: await context.storageState() });
    const p = await audit.newPage();
    const found: Record<string, string[]> = {};
    for (const theme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme: theme });
      for (const path of ['/', '/approvals', '/sessions', '/channels', '/usage']) {
        await p.goto(`${h.gateway.url}${path}`);
        await p.locator('main h1').waitFor();
        found[`${theme} ${path}`] = await seriousA11yViolations(p);
      }
    }
    const anonymous = await (await browser.newContext({ bypassCSP: true })).newPage();
    await anonymous.goto(h.gateway.url);
    await anonymous.getByRole('heading', { name: 'Sign in' }).waitFor();
    found['sign-in'] = await seriousA11yViolations(anonymous);
    await audit.close();
    expect(Object.values(found).flat()).toEqual([]);
  });

  it('reports the first screen JavaScript size (budget 200 KB gzipped) and the chat page first render', async () => {
    const fresh = await browser.newContext({ storageState: await context.storageState() });
    const p = await fresh.newPage();
    const scripts: Buffer[] = [];
    p.on('response', (r) => {
      if (r.request().resourceType() === 'script') void r.body().then((b) => scripts.push(b));
    });
    await p.goto(h.gateway.url);
    await p.waitForFunction(() => document.getElementById('composer-input'), undefined, { polling: 'raf' });
    const renderedMs = await p.evaluate(() => performance.now());
    const gzipped = scripts.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0);
    process.stdout.write(
      `\n[control UI] first screen JS: ${(gzipped / 1024).toFixed(1)} KB gzipped in ${scripts.length} file(s); chat page first render: ${renderedMs.toFixed(0)} ms after navigation start\n`,
    );
    await fresh.close();
    expect(scripts.length).toBeGreaterThan(0);
    expect(gzipped).toBeLessThanOrEqual(FIRST_SCREEN_JS_BUDGET);
    expect(errors).toEqual([]);
  });
});
