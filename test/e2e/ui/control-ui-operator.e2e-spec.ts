import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, seriousA11yViolations, signInThroughForm } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';
import { FakeTelegramServer, FakeUser } from '../../fixtures/fake-telegram.server';

// What page.evaluate callbacks touch: this project's TypeScript lib has no DOM.
declare const document: { body: object; documentElement: { dataset: { theme?: string } } };
declare function getComputedStyle(element: object): { backgroundColor: string };

/** What each test reads or clicks, in each language (the strings of apps/ui/src/i18n). */
const UI = {
  en: {
    channelsNav: 'Channels and access',
    usageNav: 'Usage and cost',
    refresh: 'Refresh',
    running: 'Running',
    failed: 'Failed: channels.discord.token is not set',
    approve: (sender: string) => `Approve ${sender}`,
    deny: (sender: string) => `Deny ${sender}`,
    approved: 'may now talk to the assistant on telegram',
    denied: 'was denied',
    revoke: (name: string) => `Revoke ${name}`,
    revokedStatus: 'was revoked',
    groupBy: 'Group by',
    exportCsv: 'Export CSV',
    calls: 'Calls',
  },
  'zh-CN': {
    channelsNav: '频道与访问',
    usageNav: '用量与费用',
    refresh: '刷新',
    running: '运行中',
    failed: '失败:channels.discord.token is not set',
    approve: (sender: string) => `批准 ${sender}`,
    deny: (sender: string) => `拒绝 ${sender}`,
    approved: '现在可以在 telegram 上与助手对话',
    denied: '的请求',
    revoke: (name: string) => `撤销 ${name}`,
    revokedStatus: '已撤销',
    groupBy: '分组方式',
    exportCsv: '导出 CSV',
    calls: '调用次数',
  },
} as const;
type Language = keyof typeof UI;

interface UsageGroup {
  key: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * The control UI's Channels and access and Usage and cost pages, in Debian's Chromium against a real
 * gateway polling a fake Telegram Bot API, with the fake model: each page in English and 简体中文.
 */
describeWithHostTools(['chromium'], 'control UI operator pages in a real browser', (tools) => {
  let h: Harness;
  let tg: FakeTelegramServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const consoleErrors: string[] = [];
  let nextUser = 4000;

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      config: {
        channels: {
          telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: [], poll_timeout: 1 },
          discord: { enabled: true }, // no token: cannot be set up, shown as failed
        },
      },
    });
    browser = await launchChromium(tools.chromium!);
    ({ page, errors } = await recordedPage(await browser.newContext({ locale: 'en-US', acceptDownloads: true })));
    await signInThroughForm(page, h.gateway.url, TEST_TOKEN);
    // From here on: before sign-in the page's session probe is answered 401, which Chromium logs.
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    await tg?.stop();
  });

  const open = async (lang: Language, nav: 'channelsNav' | 'usageNav') => {
    await page.locator('.settings select').first().selectOption(lang);
    await page.locator('header nav').getByRole('link', { name: UI[lang][nav] }).click();
    await page.getByRole('heading', { level: 1, name: UI[lang][nav] }).waitFor();
  };
  /** A stranger writes to the bot and gets a pairing code; the page shows them as `name (id)`. */
  const strangerAsks = async () => {
    const user: FakeUser = { id: nextUser++, first_name: 'Guest', username: `guest${nextUser}` };
    tg.dm(user, '你好');
    await tg.waitFor(() => tg.sentTo(user.id).length > 0, 10_000, 'the pairing code reply');
    return { user, label: `${user.username} (${user.id})` };
  };
  const refreshUntil = (lang: Language, what: string, probe: () => Promise<boolean>) =>
    eventually(what, async () => {
      await page.getByRole('button', { name: UI[lang].refresh }).click();
      return probe();
    });
  const pendingCodes = async () => ((await (await h.api('/v1/pairing')).json()) as { requests: { senderId: string }[] }).requests;

  for (const lang of ['en', 'zh-CN'] as const) {
    const ui = UI[lang];

    it(`${lang}: shows the Telegram channel running on this replica and Discord failed with the reason`, async () => {
      await open(lang, 'channelsNav');
      const row = page.locator('.channels-table tbody tr', { hasText: 'telegram' });
      await refreshUntil(lang, 'telegram running', async () => ((await row.textContent()) ?? '').includes(ui.running));
      const discord = page.locator('.channels-table tbody tr', { hasText: 'discord' });
      expect(await discord.locator('.state-failed').textContent()).toBe(ui.failed);
    });

    it(`${lang}: approves one stranger's pairing request and denies another's from the page`, async () => {
      await open(lang, 'channelsNav');
      const welcome = await strangerAsks();
      const refused = await strangerAsks();
      const approve = page.getByRole('button', { name: ui.approve(welcome.label), exact: true });
      await refreshUntil(lang, 'both requests listed', async () => (await approve.count()) === 1);
      await approve.click();
      await page.getByRole('status').filter({ hasText: ui.approved }).waitFor();
      await page.getByRole('button', { name: ui.deny(refused.label), exact: true }).click();
      await page.getByRole('status').filter({ hasText: ui.denied }).waitFor();
      expect((await pendingCodes()).map((r) => r.senderId)).not.toContain(String(refused.user.id));
      expect((await pendingCodes()).map((r) => r.senderId)).not.toContain(String(welcome.user.id));
      // Approved: the stranger is now answered by the assistant (the fake model echoes).
      const before = tg.sentTo(welcome.user.id).length;
      tg.dm(welcome.user, `hello after approval ${lang}`);
      await tg.waitFor(
        () =>
          tg
            .sentTo(welcome.user.id)
            .slice(before)
            .find((m) => m.current.includes(`hello after approval ${lang}`)),
        10_000,
        'the echoed answer to the approved sender',
      );
      expect(await page.locator('.pairing-table').count()).toBe(0);
    });

    it(`${lang}: revoking a paired token from the page makes the API refuse it`, async () => {
      const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
      const name = `phone-${lang}`;
      const paired = await fetch(`${h.gateway.url}/v1/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, name }),
      });
      const { token } = (await paired.json()) as { token: string };
      const asPhone = () => fetch(`${h.gateway.url}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
      expect((await asPhone()).status).toBe(200);
      await open(lang, 'channelsNav');
      const revoke = page.getByRole('button', { name: ui.revoke(name), exact: true });
      await refreshUntil(lang, 'the token listed', async () => (await revoke.count()) === 1);
      await revoke.click();
      await page.getByRole('status').filter({ hasText: ui.revokedStatus }).waitFor();
      expect((await asPhone()).status).toBe(401);
      await expect(revoke.count()).resolves.toBe(0);
    });

    it(`${lang}: shows a chat turn's model call by day and by model, and exports the rows as CSV`, async () => {
      const chat = await h.api('/v1/chat', { json: { message: `count this call (${lang})` } });
      expect(chat.status).toBe(200);
      const report = (await (await h.api('/v1/usage?groupBy=model')).json()) as { groups: UsageGroup[] };
      const model = report.groups[0];
      expect(model.calls).toBeGreaterThan(0);

      await open(lang, 'usageNav');
      const today = new Date().toISOString().slice(0, 10);
      const dayRow = page.locator('.usage-table tbody tr', { hasText: today });
      await dayRow.waitFor();
      expect(await dayRow.locator('td').first().textContent()).toBe(String(model.calls));
      expect(await page.locator('.usage-chart svg rect').count()).toBeGreaterThan(0);

      await page.getByLabel(ui.groupBy).selectOption('model');
      const modelRow = page.locator('.usage-table tbody tr', { hasText: model.key });
      await modelRow.waitFor();
      expect(await page.locator('.usage-table thead th').nth(1).textContent()).toBe(ui.calls);
      expect(await modelRow.locator('td').first().textContent()).toBe(String(model.calls));

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: ui.exportCsv }).click()]);
      expect(download.suggestedFilename()).toMatch(/^nestclaw-usage-model-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = readFileSync((await download.path())!, 'utf8').replace(/^\ufeff/, '');
      const lines = csv.trimEnd().split('\r\n');
      expect(lines[0]).toBe('model,calls,billed_calls,failed_calls,cached_calls,input_tokens,output_tokens,cached_input_tokens,cost_usd');
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^${model.key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')},${model.calls},`)),
      );
      expect(lines).toHaveLength(report.groups.length + 1);
    });
  }

  it('applies an allowlist change from the config file only once the code printed on the terminal is typed on the page', async () => {
    const friend: FakeUser = { id: 770_001, first_name: '老朋友', username: 'old_friend' };
    const file = join(h.home, 'config.yaml');
    const config = parse(readFileSync(file, 'utf8')) as { channels: { telegram: { allow_from: string[] } } };
    config.channels.telegram.allow_from = [String(friend.id)];
    writeFileSync(file, stringify(config));
    await open('en', 'channelsNav');
    const section = page.locator('.security-change');
    await section.getByText('No change is waiting for confirmation.').waitFor();
    // The code goes to the gateway's terminal (this process's stdout), never to the page.
    const printed: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      await section.getByRole('button', { name: 'Check the config file now' }).click();
      await section.getByText(/Changed in the config file, not yet in force: .*allow_from/).waitFor();
    } finally {
      spy.mockRestore();
    }
    const code = /with code ([A-Z2-9]{8})/.exec(printed.join(''))?.[1];
    expect(code).toBeDefined();
    expect(await page.content()).not.toContain(code);
    await section.getByRole('textbox').fill('WRONGCOD');
    const consoleBefore = consoleErrors.length;
    await section.getByRole('button', { name: 'Confirm and apply' }).click();
    // Refused, and the page stays signed in (a wrong code is not a lost session).
    await section.getByRole('alert').waitFor();
    await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
    // Chromium logs the refused request's 401 itself: that one line is expected.
    await eventually('the 401 logged', () => consoleErrors.length > consoleBefore);
    expect(consoleErrors.splice(consoleBefore)).toEqual([
      'Failed to load resource: the server responded with a status of 401 (Unauthorized)',
    ]);
    await section.getByRole('textbox').fill(code!);
    await section.getByRole('button', { name: 'Confirm and apply' }).click();
    await section.getByText(/^Applied: .*allow_from/).waitFor();
    // In force: the friend is answered, not given a pairing code.
    tg.dm(friend, '你好，我在名单上了吗？');
    await tg.waitFor(
      // Streamed as an edited preview: the message's current text is the answer.
      () => tg.sentTo(friend.id).some((m) => (m.current ?? m.text).includes('echo: 你好，我在名单上了吗？')),
      15_000,
      'the answer to the allowed friend',
    );
  });

  it('has no serious or critical axe-core violations on both pages with data, in both themes', async () => {
    // A pairing request waiting, so the decision buttons are audited too.
    await strangerAsks();
    // addScriptTag injects axe inline, which the page's own CSP refuses: a second context without it, same cookie.
    const audit = await browser.newContext({ bypassCSP: true, storageState: await page.context().storageState() });
    const p = await audit.newPage();
    const found: Record<string, string[]> = {};
    for (const theme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme: theme });
      await p.goto(`${h.gateway.url}/channels`);
      await p.locator('.pairing-table').waitFor();
      found[`${theme} /channels`] = await seriousA11yViolations(p);
      await p.goto(`${h.gateway.url}/usage`);
      await p.locator('.usage-chart svg').waitFor();
      found[`${theme} /usage`] = await seriousA11yViolations(p);
    }
    await audit.close();
    expect(Object.values(found).flat()).toEqual([]);
  });

  it('uses one dark palette for the system preference and for the theme switch', async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    /** Picks a theme and waits for the page to apply it (an effect after the render). */
    const choose = async (theme: 'system' | 'light' | 'dark') => {
      await page.locator('.settings select').nth(1).selectOption(theme);
      await page.waitForFunction((t) => (document.documentElement.dataset.theme ?? 'system') === t, theme);
    };
    await page.emulateMedia({ colorScheme: 'dark' });
    await choose('system');
    const systemDark = await background();
    await choose('light');
    const pinnedLight = await background();
    await page.emulateMedia({ colorScheme: 'light' });
    await choose('dark');
    const pinnedDark = await background();
    await choose('system');
    expect(systemDark).toBe('rgb(19, 22, 21)');
    expect(pinnedDark).toBe(systemDark);
    expect(pinnedLight).toBe('rgb(247, 247, 245)');
    expect(await background()).toBe(pinnedLight);
  });

  it('had no script errors, CSP violations or console errors', async () => {
    expect(errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
