import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeartbeatService } from '@nestclaw/agent';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { cspViolations, launchChromium, recordedPage, a11yViolationsInThemesAndLanguages, signInThroughForm } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';

/** What each test reads or clicks, in each language (the strings of apps/ui/src/i18n). */
const UI = {
  en: {
    nav: 'Jobs',
    refresh: 'Refresh',
    title: 'Scheduled jobs',
    everyHour: 'Every 1 h',
    active: 'Active',
    paused: 'Paused',
    done: 'Done',
    pause: (job: string) => `Pause “${job}”`,
    resume: (job: string) => `Resume “${job}”`,
    runNow: (job: string) => `Run now: “${job}”`,
    runs: (job: string) => `Runs of “${job}”`,
    remove: (job: string) => `Remove “${job}”`,
    removeForGood: 'Remove for good',
    removed: (job: string) => `“${job}” was removed.`,
    pausedStatus: 'is paused',
    resumedStatus: 'is resumed',
    kind: 'Runs',
    interval: 'Interval (e.g. 30m, 2h, 1d; at least 1m)',
    message: 'Message',
    add: 'Add job',
    added: 'was added.',
    heartbeats: 'Heartbeats',
    everyTwoHours: 'Every 2 h',
    on: 'On',
    off: 'Off',
    transcript: (agent: string) => `Transcript of ${agent}’s heartbeat`,
    sessionTitle: (id: string) => `Transcript of ${id}`,
    settingsLink: 'agents.<id>.heartbeat in Settings',
    settingsTitle: 'Settings and health',
  },
  'zh-CN': {
    nav: '定时任务',
    refresh: '刷新',
    title: '定时任务',
    everyHour: '每 1 小时',
    active: '运行中',
    paused: '已暂停',
    done: '完成',
    pause: (job: string) => `暂停“${job}”`,
    resume: (job: string) => `恢复“${job}”`,
    runNow: (job: string) => `立即执行“${job}”`,
    runs: (job: string) => `“${job}”的执行记录`,
    remove: (job: string) => `删除“${job}”`,
    removeForGood: '永久删除',
    removed: (job: string) => `“${job}”已删除。`,
    pausedStatus: '已暂停',
    resumedStatus: '已恢复',
    kind: '执行方式',
    interval: '间隔（如 30m、2h、1d；至少 1m）',
    message: '消息',
    add: '添加',
    added: '已添加',
    heartbeats: '心跳',
    everyTwoHours: '每 2 小时',
    on: '已开启',
    off: '已关闭',
    transcript: (agent: string) => `${agent} 的心跳会话记录`,
    sessionTitle: (id: string) => `${id} 的对话记录`,
    settingsLink: '在设置中修改 agents.<id>.heartbeat',
    settingsTitle: '设置与健康',
  },
} as const;
type Language = keyof typeof UI;

// What page.evaluate callbacks touch: this project's TypeScript lib has no DOM.
declare const document: { activeElement: { textContent: string | null } | null };

interface Job {
  id: string;
  message: string;
  state: string;
}
type Heartbeat = { agentId: string; nextDueAt: string | null; lastRun: { status: string } | null };

/** The `watcher` agent's standing task: its heartbeat has something to do, so it calls the model. */
const WATCHER_TASK = '- [ ] check whether the nightly build is green';

/**
 * The control UI's Jobs page in Debian's Chromium against a real gateway and scheduler: a job made
 * through the API is paused, resumed, run now (its run shown), and removed from the page, each
 * checked against the API; a job added through the page's form; each agent's heartbeat with its
 * interval, next run and transcript; in English and 简体中文.
 */
describeWithHostTools(['chromium'], 'control UI jobs page in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    h = await startHarness({
      config: { agents: { default: {}, watcher: { heartbeat: { enabled: true, interval: '2h' } } } },
      beforeStart: (home) => {
        const dir = join(home, 'workspaces', 'agents', 'watcher');
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'HEARTBEAT.md'), `# Heartbeat\n${WATCHER_TASK}\n`);
      },
    });
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

  const add = async (message: string, schedule: unknown = { every: '1h' }) => {
    const res = await h.api('/v1/cron', { json: { schedule, message } });
    expect(res.status).toBe(201);
    return (await res.json()) as Job;
  };
  const apiJobs = async () => ((await (await h.api('/v1/cron')).json()) as { jobs: Job[] }).jobs;
  const open = async (p: Page, lang: Language) => {
    await p.locator('.settings select').first().selectOption(lang);
    await p.locator('header nav').getByRole('link', { name: UI[lang].nav }).click();
    await p.getByRole('heading', { level: 1, name: UI[lang].title }).waitFor();
    // Already on the page (the previous test's): the list is loaded again, as a person would.
    await p.getByRole('button', { name: UI[lang].refresh, exact: true }).click();
  };
  const row = (message: string) => page.locator('.jobs-table tbody tr', { has: page.locator('th', { hasText: message }) });
  const heartbeatRow = (agent: string) => page.locator('.heartbeats-table tbody tr', { has: page.locator('th', { hasText: agent }) });
  /** The watcher's heartbeat, once it has beaten (the gateway's own tick may have made it already: a slot beats once). */
  const watcherBeat = async () => {
    await h.gateway.app.get(HeartbeatService).tick();
    let found: Heartbeat | undefined;
    await eventually('the watcher heartbeat ran', async () => {
      const { heartbeats } = (await (await h.api('/v1/heartbeats')).json()) as { heartbeats: Heartbeat[] };
      found = heartbeats.find((b) => b.agentId === 'watcher');
      return found?.lastRun?.status === 'ok';
    });
    return found!;
  };

  for (const lang of ['en', 'zh-CN'] as const) {
    const ui = UI[lang];

    it(`${lang}: pauses, resumes and runs a job now from the page, shows its run, then removes it after a confirmation`, async () => {
      const message = `每小时提醒喝水 ${randomBytes(4).toString('hex')}`;
      const job = await add(message);
      await open(page, lang);
      await row(message).filter({ hasText: ui.everyHour }).filter({ hasText: ui.active }).waitFor();

      await page.getByRole('button', { name: ui.pause(message) }).click();
      await page.getByRole('status').filter({ hasText: ui.pausedStatus }).waitFor();
      await row(message).filter({ hasText: ui.paused }).waitFor();
      expect((await apiJobs()).find((j) => j.id === job.id)?.state).toBe('paused');
      // A paused job cannot be run now (that would resume it): the page does not offer it.
      expect(await page.getByRole('button', { name: ui.runNow(message) }).count()).toBe(0);

      await page.getByRole('button', { name: ui.resume(message) }).click();
      await page.getByRole('status').filter({ hasText: ui.resumedStatus }).waitFor();
      await row(message).filter({ hasText: ui.active }).waitFor();
      expect((await apiJobs()).find((j) => j.id === job.id)?.state).toBe('active');

      await page.getByRole('button', { name: ui.runNow(message) }).click();
      await eventually(
        'the run finished',
        async () => {
          const { runs } = (await (await h.api(`/v1/cron/${job.id}/runs`)).json()) as { runs: { status: string }[] };
          return runs.length === 1 && runs[0].status === 'ok';
        },
        20_000,
      );
      await page.getByRole('button', { name: ui.runs(message) }).click();
      await page.locator('.job-runs tbody tr').filter({ hasText: ui.done }).waitFor();
      expect(h.llm.requests.filter((r) => r.body.messages.at(-1)?.content === message)).toHaveLength(1);

      await page.getByRole('button', { name: ui.remove(message) }).click();
      // The keyboard lands on the confirmation: Enter removes.
      await page.waitForFunction((label) => document.activeElement?.textContent === label, ui.removeForGood);
      await page.keyboard.press('Enter');
      await page
        .getByRole('status')
        .filter({ hasText: ui.removed(message) })
        .waitFor();
      await row(message).waitFor({ state: 'detached' });
      await page.locator('.job-runs').waitFor({ state: 'detached' });
      expect((await apiJobs()).some((j) => j.id === job.id)).toBe(false);
    });

    it(`${lang}: adds a job through the form, and shows the gateway's reason for a schedule it refuses`, async () => {
      const message = `周报 ${lang} ${randomBytes(4).toString('hex')}`;
      await open(page, lang);
      await page.getByLabel(ui.kind, { exact: true }).selectOption('every');
      await page.getByLabel(ui.interval).fill('5s');
      await page.getByLabel(ui.message, { exact: true }).fill(message);
      await page.getByRole('button', { name: ui.add, exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'schedule.every must be at least 1m' }).waitFor();
      expect((await apiJobs()).some((j) => j.message === message)).toBe(false);

      await page.getByLabel(ui.interval).fill('2h');
      await page.getByRole('button', { name: ui.add, exact: true }).click();
      await page.getByRole('status').filter({ hasText: ui.added }).waitFor();
      await row(message).filter({ hasText: ui.active }).waitFor();
      expect((await apiJobs()).find((j) => j.message === message)).toMatchObject({ schedule: { every: 7_200_000 }, state: 'active' });
    });
  }

  for (const lang of ['en', 'zh-CN'] as const) {
    const ui = UI[lang];

    it(`${lang}: shows each agent's heartbeat with its interval and next run, opens its transcript, and links the settings that change it`, async () => {
      const watcher = await watcherBeat();
      await open(page, lang);
      await page.getByRole('heading', { level: 2, name: ui.heartbeats }).waitFor();
      // The next run as the page's language writes the time the gateway computed.
      const next = await page.evaluate(([iso, l]) => new Date(iso).toLocaleString(l), [watcher.nextDueAt!, lang] as const);
      expect(Date.parse(watcher.nextDueAt!)).toBeGreaterThan(Date.now());
      await heartbeatRow('watcher').filter({ hasText: ui.everyTwoHours }).filter({ hasText: ui.on }).filter({ hasText: next }).waitFor();
      await heartbeatRow('default').filter({ hasText: ui.off }).waitFor();
      expect(h.llm.requests.filter((r) => String(r.body.messages.at(-1)?.content).includes(WATCHER_TASK))).toHaveLength(1);

      await page.getByRole('link', { name: ui.transcript('watcher') }).click();
      await page.getByRole('heading', { level: 2, name: ui.sessionTitle('heartbeat:watcher') }).waitFor();
      await page.locator('.transcript-panel', { hasText: 'nightly build' }).waitFor();

      await open(page, lang);
      await page.getByRole('link', { name: ui.settingsLink }).click();
      await page.getByRole('heading', { level: 1, name: ui.settingsTitle }).waitFor();
      await page.locator('details#config-agents[open]').waitFor();
    });
  }

  it('shows a paired chat-only session its own jobs only', async () => {
    const marker = randomBytes(4).toString('hex');
    const ownersJob = `the owner's job ${marker}`;
    await add(ownersJob);
    const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'jobs-phone' }),
    });
    const { token } = (await paired.json()) as { token: string };
    const mine = `my own job ${marker}`;
    const res = await fetch(`${h.gateway.url}/v1/cron`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ schedule: { every: '1d' }, message: mine }),
    });
    expect(res.status).toBe(201);
    const context = await browser.newContext({ locale: 'en-US' });
    const phone = await context.newPage();
    await signInThroughForm(phone, h.gateway.url, token);
    await open(phone, 'en');
    await phone.locator('.jobs-table th', { hasText: mine }).waitFor();
    expect(await phone.locator('.jobs-table tbody tr').count()).toBe(1);
    // Heartbeats are every agent's settings and spend: not for a chat-only token.
    expect(await phone.locator('.heartbeats-table').count()).toBe(0);
    await context.close();
  }, 60_000);

  it('has no serious or critical axe-core violations with jobs, runs and the confirmation shown, in both themes and languages', async () => {
    const message = `audited job ${randomBytes(4).toString('hex')}`;
    const job = await add(message);
    const paused = await add(`paused job ${randomBytes(4).toString('hex')}`);
    expect((await h.api(`/v1/cron/${paused.id}/pause`, { method: 'POST' })).status).toBe(200);
    expect((await h.api(`/v1/cron/${job.id}/run`, { method: 'POST' })).status).toBe(202);
    await eventually('the audited run', async () => {
      const { runs } = (await (await h.api(`/v1/cron/${job.id}/runs`)).json()) as { runs: unknown[] };
      return runs.length === 1;
    });
    const found = await a11yViolationsInThemesAndLanguages(browser, page, h.gateway.url, '/jobs', async (p, lang) => {
      await p.getByRole('button', { name: UI[lang].runs(message) }).click();
      await p.locator('.job-runs tbody tr').first().waitFor();
      await p.getByRole('button', { name: UI[lang].remove(message) }).click();
      await p.getByRole('button', { name: UI[lang].removeForGood }).waitFor();
    });
    expect(Object.values(found).flat()).toEqual([]);
  }, 60_000);

  it('had no script errors, CSP violations or console errors', async () => {
    expect(errors).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    // Only the two schedules refused on purpose (one per language), which Chromium logs as failed loads.
    expect(consoleErrors).toEqual(Array(2).fill('Failed to load resource: the server responded with a status of 400 (Bad Request)'));
  });
});
