import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, a11yViolationsInThemesAndLanguages, signInThroughForm } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';

/** What each test reads, in each language (the strings of apps/ui/src/i18n). */
const UI = {
  en: {
    nav: 'Agents',
    usage: 'Usage and cost',
    budgets: 'Budgets against spend',
    memory: 'Long-term memory',
    on: 'On',
    heartbeat: 'Heartbeat',
    every45: 'Every 45 min',
    off: 'Off',
    today: 'Spent today (UTC)',
    month: 'Spent this month (UTC)',
    of: (spent: string, budget: string, share: number) => `${spent} of ${budget} (${share}%)`,
    noBudget: (spent: string) => `${spent} (no budget)`,
    enforced: 'New turns are refused',
  },
  'zh-CN': {
    nav: '智能体',
    usage: '用量与费用',
    budgets: '预算与花费',
    memory: '长期记忆',
    on: '开启',
    heartbeat: '心跳',
    every45: '每 45 分钟',
    off: '关闭',
    today: '今日花费（UTC）',
    month: '本月花费（UTC）',
    of: (spent: string, budget: string, share: number) => `${spent} / ${budget}（${share}%）`,
    noBudget: (spent: string) => `${spent}（未设预算）`,
    enforced: '拒绝新的对话轮次',
  },
} as const;

interface Agent {
  id: string;
  model: string | null;
  tools: string[];
  skills: { name: string }[];
  memory: boolean;
  budget: { dailyUsd: number | null; monthlyUsd: number | null } | null;
  spend: { dayUsd: number; monthUsd: number };
}

/**
 * The control UI's Agents page in Debian's Chromium against a real gateway: each configured agent with
 * its model, tools, skills, memory and heartbeat, and its spend (a real turn, billed at the fake
 * model's price) against its budget, in English and 简体中文; GET /v1/agents needs the admin scope.
 */
describeWithHostTools(['chromium'], 'control UI agents page in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    h = await startHarness({
      // A price that makes one short turn cost dollars, so the spend is visible at 4 decimals.
      model: { price: { input: 100_000, output: 100_000 } },
      config: {
        agents: {
          default: { budget: { daily_usd: 50, monthly_usd: 500, enforce: true } },
          writer: { tools: ['current_time', 'file_read'], heartbeat: { enabled: true, interval: '45m' } },
        },
      },
    });
    const chat = await h.api('/v1/chat', { json: { message: '你好，算一下花费', agentId: 'default' } });
    expect(chat.status).toBe(200);
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

  const apiAgents = async () => ((await (await h.api('/v1/agents')).json()) as { agents: Agent[] }).agents;
  const usd = (n: number) => `$${n.toFixed(4)}`;
  const card = (id: string) => page.locator('.agent-card', { has: page.getByRole('heading', { level: 2, name: id, exact: true }) });
  const fact = (id: string, label: string) => card(id).locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]');

  it('answers GET /v1/agents with each agent, its spend from the ledger and its budget; only to the admin scope', async () => {
    const agents = await apiAgents();
    expect(agents.map((a) => a.id)).toEqual(['default', 'writer']);
    const [main, writer] = agents;
    expect(main).toMatchObject({ model: 'fake', memory: true, budget: { dailyUsd: 50, monthlyUsd: 500, enforce: true } });
    expect(main.spend.dayUsd).toBeGreaterThan(0);
    expect(main.spend.monthUsd).toBe(main.spend.dayUsd);
    expect(main.skills.length).toBeGreaterThan(0);
    expect(writer).toMatchObject({ tools: ['current_time', 'file_read'], budget: null, spend: { dayUsd: 0, monthUsd: 0 } });

    const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'agents-phone' }),
    });
    const { token } = (await paired.json()) as { token: string };
    const refused = await fetch(`${h.gateway.url}/v1/agents`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  for (const lang of ['en', 'zh-CN'] as const) {
    const ui = UI[lang];

    it(`${lang}: shows each agent's model, tools, memory, heartbeat and skills, and its spend against its budget`, async () => {
      const [main, writer] = await apiAgents();
      await page.locator('.settings select').first().selectOption(lang);
      await page.locator('header nav').getByRole('link', { name: ui.nav }).click();
      await card('default').waitFor();
      expect(await fact('default', ui.memory).textContent()).toBe(ui.on);
      expect(await fact('default', ui.heartbeat).textContent()).toBe(ui.off);
      expect(await fact('writer', ui.heartbeat).textContent()).toBe(ui.every45);
      expect(await card('writer').textContent()).toContain('current_time, file_read');
      expect(await card('default').locator('.agent-skills li').count()).toBe(main.skills.length);

      const day = main.spend.dayUsd;
      expect(await fact('default', ui.today).textContent()).toBe(ui.of(usd(day), '$50', Math.round((day / 50) * 100)));
      expect(await fact('default', ui.month).textContent()).toBe(ui.of(usd(day), '$500', Math.round((day / 500) * 100)));
      expect(await fact('default', ui.today).locator('meter').getAttribute('value')).toBe(String(Math.min(day, 50)));
      expect(await card('default').textContent()).toContain(ui.enforced);
      expect(await fact('writer', ui.today).textContent()).toBe(ui.noBudget(usd(writer.spend.dayUsd)));

      // The Usage page shows the same budgets against spend.
      await page.locator('header nav').getByRole('link', { name: ui.usage }).click();
      await page.getByRole('heading', { level: 2, name: ui.budgets }).waitFor();
      const budget = (id: string, label: string) =>
        page
          .locator('.usage-budget', { has: page.getByRole('heading', { level: 3, name: id, exact: true }) })
          .locator('dt', { hasText: label })
          .locator('xpath=following-sibling::dd[1]');
      expect(await budget('default', ui.month).textContent()).toBe(ui.of(usd(day), '$500', Math.round((day / 500) * 100)));
      expect(await budget('writer', ui.today).textContent()).toBe(ui.noBudget(usd(writer.spend.dayUsd)));
    });
  }

  it("reads and writes an agent's workspace files through the API with the same checks, and answers its prompt report", async () => {
    const report = (await (await h.api('/v1/agents/writer/prompt')).json()) as {
      files: { name: string; tokens: number }[];
      helloTokens: number;
    };
    expect(report.files.map((f) => f.name)).toEqual(['AGENTS.md', 'SOUL.md', 'USER.md', 'IDENTITY.md', 'TOOLS.md']);
    expect(report.helloTokens).toBeGreaterThan(0);
    const soul = '# 性格\n\n你说话简洁，总是用“喵”结尾。\n';
    const put = await h.api('/v1/agents/writer/files/SOUL.md', { method: 'PUT', json: { content: soul } });
    expect(put.status).toBe(200);
    expect(((await (await h.api('/v1/agents/writer/files/SOUL.md')).json()) as { content: string }).content).toBe(soul);
    const chat = await h.api('/v1/chat', { json: { message: '你好', agentId: 'writer' } });
    expect(chat.status).toBe(200);
    expect(JSON.stringify(h.llm.requests[h.llm.requests.length - 1].body.messages[0])).toContain('总是用“喵”结尾');
    // Only the bootstrap files, only of configured agents, never through a link or past the size cap.
    for (const [path, status] of [
      ['/v1/agents/writer/files/config.yaml', 404],
      ['/v1/agents/writer/files/..%2F..%2Fconfig.yaml', 404],
      ['/v1/agents/nobody/files/SOUL.md', 404],
      ['/v1/agents/__proto__/files/SOUL.md', 404],
    ] as const) {
      const res = await h.api(path, { method: 'PUT', json: { content: 'x' } });
      expect({ path, status: res.status }).toEqual({ path, status });
    }
    expect(
      (await h.api('/v1/agents/writer/files/SOUL.md', { method: 'PUT', json: { content: 'x'.repeat(300_000) } })).status,
    ).toBeGreaterThanOrEqual(400);
    const dir = join(h.home, 'workspaces', 'agents', 'writer');
    rmSync(join(dir, 'USER.md'));
    symlinkSync(join(h.home, 'config.yaml'), join(dir, 'USER.md'));
    const viaLink = await h.api('/v1/agents/writer/files/USER.md', { method: 'PUT', json: { content: 'overwrite the config' } });
    expect(viaLink.status).toBe(409);
    expect(readFileSync(join(h.home, 'config.yaml'), 'utf8')).not.toContain('overwrite the config');
    const read = await h.api('/v1/agents/writer/files/USER.md');
    expect(read.status).toBe(409);
    expect(await read.text()).not.toContain('sk-test');
    rmSync(join(dir, 'USER.md'));
    const audit = (await (await h.api('/v1/audit?action=workspace.write')).json()) as { entries: { target: string }[] };
    expect(audit.entries.map((e) => e.target)).toEqual(['writer/SOUL.md']);
  });

  for (const [lang, ui] of [
    ['en', { prompt: 'Prompt and workspace files', edit: 'Edit IDENTITY.md', save: 'Save', saved: 'Saved IDENTITY.md.' }],
    ['zh-CN', { prompt: '提示词与工作区文件', edit: '编辑 IDENTITY.md', save: '保存', saved: '已保存 IDENTITY.md。' }],
  ] as const) {
    it(`${lang}: shows the writer's prompt report and edits a workspace file from its card`, async () => {
      await page.locator('.settings select').first().selectOption(lang);
      await page.goto(`${h.gateway.url}/agents`);
      const prompt = card('writer').locator('details.agent-prompt');
      await prompt.locator('summary', { hasText: ui.prompt }).click();
      const row = prompt.locator('tbody tr', { has: page.locator('th', { hasText: 'IDENTITY.md' }) });
      await row.waitFor();
      const before = await prompt.locator('.agent-hello').textContent();
      await row.getByRole('button', { name: ui.edit }).click();
      const box = prompt.locator('textarea');
      await box.waitFor();
      await box.fill(`# 身份 ${lang}\n\n${'你是写作助手。'.repeat(40)}\n`);
      await prompt.getByRole('button', { name: ui.save }).click();
      await prompt.getByText(ui.saved).waitFor();
      expect(await prompt.locator('.agent-hello').textContent()).not.toBe(before);
      const file = (await (await h.api('/v1/agents/writer/files/IDENTITY.md')).json()) as { content: string };
      expect(file.content).toContain(`# 身份 ${lang}`);
    });
  }

  for (const [lang, ui] of [
    ['en', { add: 'New skill', name: 'Skill name', save: 'Save', edit: 'Edit skill', view: 'View web-research', ro: 'Read-only here' }],
    ['zh-CN', { add: '新建技能', name: '技能名称', save: '保存', edit: '编辑技能', view: '查看 web-research', ro: '此处只读' }],
  ] as const) {
    it(`${lang}: creates and edits a skill in the writer's workspace from its card, and shows a built-in one read-only`, async () => {
      const name = `notes-${lang}`;
      await page.locator('.settings select').first().selectOption(lang);
      await page.goto(`${h.gateway.url}/agents`);
      const editor = card('writer').locator('.skill-editor');
      await card('writer').getByRole('button', { name: ui.add }).click();
      await editor.getByLabel(ui.name).fill(name);
      await editor.locator('textarea').fill(`---\ndescription: Keep notes (${lang})\n---\n# Notes\n`);
      await editor.getByRole('button', { name: ui.save }).click();
      const row = card('writer').locator('.agent-skills li', { hasText: name });
      await row.waitFor();
      await row.getByRole('button', { name: `${ui.edit} ${name}` }).click();
      await editor.locator('textarea').waitFor(); // shown once the file is read
      expect(await editor.locator('textarea').inputValue()).toContain(`Keep notes (${lang})`);
      await editor.locator('textarea').fill(`---\ndescription: Keep short notes (${lang})\n---\n`);
      await editor.getByRole('button', { name: ui.save }).click();
      await editor.waitFor({ state: 'detached' });
      const saved = (await (await h.api(`/v1/agents/writer/skills/${name}`)).json()) as { content: string; source: string };
      expect(saved).toMatchObject({ source: 'workspace', content: expect.stringContaining(`Keep short notes (${lang})`) });

      await card('writer').getByRole('button', { name: ui.view }).click();
      await editor.getByText(ui.ro).waitFor();
      expect(await editor.locator('textarea').getAttribute('readonly')).not.toBeNull();
      expect(await editor.getByRole('button', { name: ui.save }).count()).toBe(0);
    });
  }

  it('shows no Agents link to a chat-only session', async () => {
    const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'agents-chat-only' }),
    });
    const { token } = (await paired.json()) as { token: string };
    const context = await browser.newContext({ locale: 'en-US' });
    const phone = await context.newPage();
    await signInThroughForm(phone, h.gateway.url, token);
    await phone.locator('header nav').getByRole('link', { name: 'Jobs' }).waitFor();
    expect(await phone.locator('header nav').getByRole('link', { name: UI.en.nav }).count()).toBe(0);
    await context.close();
  }, 60_000);

  it('has no serious or critical axe-core violations, in both themes and languages', async () => {
    const found = await a11yViolationsInThemesAndLanguages(browser, page, h.gateway.url, '/agents', async (p) => {
      await p.locator('.agent-card meter').first().waitFor();
    });
    expect(Object.values(found).flat()).toEqual([]);
  }, 60_000);

  it('had no script errors, CSP violations or console errors', async () => {
    expect(errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
