import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, a11yViolationsInThemesAndLanguages, signInThroughForm } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';

/** What each test reads and clicks, in each language (the strings of apps/ui/src/i18n). */
const UI = {
  en: {
    nav: 'Settings and health',
    hot: 'applies at once',
    restart: 'needs a restart',
    edit: (s: string) => `Edit ${s}`,
    preview: 'Preview changes',
    apply: 'Apply',
    applied: 'Saved and applied: 1 value(s) changed.',
    ok: 'ok',
  },
  'zh-CN': {
    nav: '设置与健康',
    hot: '立即生效',
    restart: '需要重启',
    edit: (s: string) => `编辑 ${s}`,
    preview: '预览修改',
    apply: '应用',
    applied: '已保存并生效：1 个值已修改。',
    ok: '正常',
  },
} as const;

interface ConfigView {
  path: string;
  version: string;
  sections: { name: string; hot: boolean; effective: unknown; file?: unknown; fileYaml: string }[];
}
type ErrorBody = { error: { code: string; message: string } };

/**
 * The control UI's Settings and health page in Debian's Chromium against a real gateway: the
 * configuration in force with secrets hidden, a hot section edited with the diff shown before it is
 * saved, the change in force on the next turn (a masked API key kept as it was), restart-only sections
 * refused, the doctor's checks and the models' breakers, the link to Grafana when one is configured, in
 * English and 简体中文.
 */
describeWithHostTools(['chromium'], 'control UI settings page in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const consoleErrors: string[] = [];
  const configText = () => readFileSync(join(h.home, 'config.yaml'), 'utf8');
  const view = async () => (await (await h.api('/v1/config')).json()) as ConfigView;
  const lastRequest = () => h.llm.requests[h.llm.requests.length - 1];
  /** Opens a section's card (a <details>; clicking an open one would close it). */
  const openCard = async (p: Page, name: string) => {
    const card = p.locator(`#config-${name}`);
    if (!(await card.evaluate((d) => (d as unknown as { open: boolean }).open))) await card.locator('summary').click();
    return card;
  };

  beforeAll(async () => {
    h = await startHarness({ config: { prompts: { system: '原来的系统提示' } } });
    browser = await launchChromium(tools.chromium!);
    ({ page, errors } = await recordedPage(await browser.newContext({ locale: 'en-US' })));
    await signInThroughForm(page, h.gateway.url, TEST_TOKEN);
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('answers GET /v1/config with every section and no secret; refuses stale, restart-only and chat-scoped edits', async () => {
    const res = await h.api('/v1/config');
    const text = await res.clone().text();
    expect(text).not.toContain('sk-test');
    expect(text).not.toContain(TEST_TOKEN);
    const config = (await res.json()) as ConfigView;
    const models = config.sections.find((s) => s.name === 'models')!;
    expect(models).toMatchObject({ hot: true, file: { fake: { api_key: '[redacted]', model: 'fake-model' } } });
    expect(models.fileYaml).toContain('api_key: "[redacted]"');
    expect(config.sections.find((s) => s.name === 'server')).toMatchObject({ hot: false });

    const put = (section: string, yaml: string, version: string) =>
      h.api(`/v1/config/sections/${section}`, { method: 'PUT', json: { yaml, version } });
    const stale = await put('prompts', 'system: x\n', 'not-the-version');
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as ErrorBody).error.message).toContain('reload the settings');
    const restartOnly = await put('server', 'port: 1\n', config.version);
    expect(restartOnly.status).toBe(400);
    expect(((await restartOnly.json()) as ErrorBody).error.message).toContain('restart');
    const invalid = await h.api('/v1/config/sections/log/preview', { json: { yaml: 'level: loud\n', version: config.version } });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as ErrorBody).error).toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining('log.level'),
    });
    const extra = await h.api('/v1/config/sections/log/preview', { json: { yaml: '', version: config.version, force: true } });
    expect(extra.status).toBe(400);

    const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'settings-phone' }),
    });
    const { token } = (await paired.json()) as { token: string };
    for (const [method, path] of [
      ['GET', '/v1/config'],
      ['PUT', '/v1/config/sections/prompts'],
    ]) {
      const refused = await fetch(`${h.gateway.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: method === 'PUT' ? JSON.stringify({ yaml: 'system: taken over\n', version: config.version }) : undefined,
      });
      expect(refused.status).toBe(403);
    }
    expect(configText()).not.toContain('taken over');
  });

  for (const lang of ['en', 'zh-CN'] as const) {
    const ui = UI[lang];

    it(`${lang}: edits the system prompt with the diff shown first, and the next turn runs with it`, async () => {
      const wanted = `设置页改过的系统提示 (${lang})`;
      const before = (await view()).sections.find((s) => s.name === 'prompts')!.effective as { system: string };
      await page.locator('.settings select').first().selectOption(lang);
      await page.locator('header nav').getByRole('link', { name: ui.nav }).click();
      const card = await openCard(page, 'prompts');
      expect(await card.locator('summary .state').textContent()).toBe(ui.hot);
      await card.getByRole('button', { name: ui.edit('prompts') }).click();
      const box = card.locator('textarea');
      expect(await box.inputValue()).toContain(before.system);
      await box.fill(`system: ${wanted}\n`);
      await card.getByRole('button', { name: ui.preview }).click();
      const row = card.locator('.config-diff tbody tr');
      await row.waitFor();
      expect(await row.locator('th').textContent()).toBe('prompts.system');
      expect(await row.locator('del').textContent()).toBe(before.system);
      expect(await row.locator('ins').textContent()).toBe(wanted);
      // The preview wrote nothing.
      expect(configText()).not.toContain(wanted);

      await card.getByRole('button', { name: ui.apply }).click();
      await card.getByText(ui.applied).waitFor();
      expect(configText()).toContain(wanted);
      expect(configText()).toContain('api_key: sk-test');
      const chat = await h.api('/v1/chat', { json: { message: 'hello' } });
      expect(chat.status).toBe(200);
      expect(JSON.stringify(lastRequest().body.messages[0])).toContain(wanted);
      // The page reloaded what the file now holds: the card shows the value in force.
      await page.locator('#config-prompts pre', { hasText: wanted }).waitFor();
      expect(await page.locator('#config-server summary .state').textContent()).toBe(ui.restart);
    });
  }

  it('changes a model with its API key left masked: the key is kept, the new model answers the next turn', async () => {
    await page.locator('.settings select').first().selectOption('en');
    await page.goto(`${h.gateway.url}/settings`);
    const card = await openCard(page, 'models');
    await card.getByRole('button', { name: 'Edit models' }).click();
    const box = card.locator('textarea');
    const yaml = await box.inputValue();
    expect(yaml).not.toContain('sk-test');
    await box.fill(yaml.replace('model: fake-model', 'model: fake-model-2'));
    await card.getByRole('button', { name: 'Preview changes' }).click();
    await card.locator('.config-diff tbody tr').waitFor();
    expect(await card.locator('.config-diff tbody tr').count()).toBe(1);
    expect(await card.locator('.config-diff tbody th').textContent()).toBe('models.fake.model');
    await card.getByRole('button', { name: 'Apply' }).click();
    await card.getByText('Saved and applied: 1 value(s) changed.').waitFor();
    await page.locator('#config-models pre', { hasText: 'fake-model-2' }).waitFor();
    expect(configText()).toContain('api_key: sk-test');
    const chat = await h.api('/v1/chat', { json: { message: 'which model?' } });
    expect(chat.status).toBe(200);
    expect(lastRequest().body.model).toBe('fake-model-2');
    expect(lastRequest().headers.authorization).toBe('Bearer sk-test');
    const audit = (await (await h.api('/v1/audit?action=config.change')).json()) as { entries?: unknown[]; records?: unknown[] };
    expect(JSON.stringify(audit)).toContain('models.fake.model');
  });

  it('shows the doctor checks and each model with its breaker', async () => {
    await page.goto(`${h.gateway.url}/settings`);
    const checks = page.locator('table', { has: page.getByRole('columnheader', { name: 'Check' }) });
    await checks.locator('tbody tr').first().waitFor();
    expect(
      await checks
        .locator('tbody tr', { has: page.locator('th', { hasText: /^database$/ }) })
        .locator('.state')
        .textContent(),
    ).toBe(UI.en.ok);
    const fake = page.locator('table tbody tr', { has: page.locator('th', { hasText: /^fake$/ }) });
    expect(await fake.textContent()).toContain('closed');
  });

  it('links to Grafana only when observability.grafana_url is set, in a new tab that cannot reach back', async () => {
    await page.goto(`${h.gateway.url}/settings`);
    // The link comes with the sections (both from GET /v1/config): once they are shown, no link is.
    await page.locator('#config-observability').waitFor();
    expect(await page.getByRole('link', { name: 'Open Grafana' }).count()).toBe(0);

    const grafana = 'https://grafana.example.com/d/nestclaw?orgId=1';
    const withGrafana = await startHarness({ config: { observability: { grafana_url: grafana } } });
    const context = await browser.newContext({ locale: 'en-US' });
    try {
      const p = await context.newPage();
      await signInThroughForm(p, withGrafana.gateway.url, TEST_TOKEN);
      await p.locator('.settings select').first().selectOption('zh-CN');
      await p.locator('header nav').getByRole('link', { name: UI['zh-CN'].nav }).click();
      const link = p.getByRole('link', { name: '打开 Grafana' });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(grafana);
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    } finally {
      await context.close();
      await withGrafana.stop();
    }
  }, 60_000);

  it('has no serious or critical axe-core violations with an edit previewed, in both themes and languages', async () => {
    const found = await a11yViolationsInThemesAndLanguages(browser, page, h.gateway.url, '/settings', async (p, lang) => {
      const card = await openCard(p, 'log');
      await card.getByRole('button', { name: UI[lang].edit('log') }).click();
      await card.locator('textarea').fill('level: debug\n');
      await card.getByRole('button', { name: UI[lang].preview }).click();
      await card.locator('.config-diff tbody tr').waitFor();
    });
    expect(Object.values(found).flat()).toEqual([]);
  }, 90_000);

  it('had no script errors, CSP violations or console errors', async () => {
    expect(errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
