import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ChannelAccessService } from '@nestclaw/security';
import { eventually } from '../../support/eventually';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';
import { launchChromium, recordedPage, signInThroughForm, SocketLog } from '../../support/browser';
import { describeWithHostTools } from '../../support/host-tools';
import { FakeTelegramServer } from '../../fixtures/fake-telegram.server';

/**
 * The control UI's Approvals inbox, Stop, bounded tool output, the agent picker and the channels'
 * allowlists, in Debian's Chromium against a real gateway with two agents, the fake model and a fake
 * Telegram Bot API.
 */
describeWithHostTools(['chromium'], 'control UI pages in a real browser', (tools) => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let socket: SocketLog;
  let tg: FakeTelegramServer;
  const message = () => page.getByLabel('Message');

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    h = await startHarness({
      config: {
        agents: { coder: { system_prompt: 'You are the coder agent.' } },
        channels: { telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: ['424242'], poll_timeout: 1 } },
      },
    });
    browser = await launchChromium(tools.chromium!);
    ({ page, socket } = await recordedPage(await browser.newContext({ locale: 'en-US' })));
    await signInThroughForm(page, h.gateway.url, TEST_TOKEN);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    await tg?.stop();
  });

  it('approves a waiting tool call from the Approvals inbox, which resumes its turn, and lists the decision', async () => {
    const input = { path: 'inbox-approved.txt', content: 'approved from the inbox' };
    const chat = h.api('/v1/chat', { json: { message: `save it [tool:file_write ${JSON.stringify(input)}]` } });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
    const card = page.locator('.approval-entry', { hasText: 'inbox-approved.txt' });
    // The inbox loads once: refresh until the paused turn's approval is there.
    await eventually('the approval in the inbox', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await card.count()) > 0;
    });
    await expect(card.locator('pre').textContent()).resolves.toContain('approved from the inbox');
    // Why it waits: the configured rule that matched.
    await expect(card.locator('dd.mono', { hasText: 'tools.approval.required' }).textContent()).resolves.toBe(
      'tools.approval.required lists file_write',
    );
    // Time left before the approval times out (tools.approval.timeout, 10 min), ticking down each second.
    const countdown = card.locator('time.countdown');
    const first = await countdown.textContent();
    expect(first).toMatch(/^in (10:00|9:[0-5]\d)$/);
    await eventually('the countdown to tick', async () => (await countdown.textContent()) !== first, 5_000);
    expect(await countdown.getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await card.getByRole('button', { name: 'Approve' }).click();
    const res = await chat;
    expect(((await res.json()) as { reply: string }).reply).toBe('tool said: wrote 23 bytes to inbox-approved.txt');
    const row = page.locator('tbody tr', { hasText: 'file_write' }).first();
    await expect(row.textContent()).resolves.toMatch(/Approved.*owner/);
  });

  it('stops a streaming answer with Stop (a cancel frame)', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
    h.llm.enqueue({ kind: 'text', text: 'never ending '.repeat(100), tokenDelayMs: 50 });
    const before = socket.received.length;
    await message().fill('talk for a while');
    await message().press('Enter');
    await eventually('the answer to stream', () => socket.received.slice(before).some((f) => f.type === 'token'));
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped.', { exact: true }).waitFor();
    expect(socket.sent.filter((f) => f.type === 'cancel')).toHaveLength(1);
    await page.getByRole('button', { name: 'Send' }).waitFor();
  });

  it('collapses a tool output beyond 2 KB and shows all of it on request', async () => {
    const dir = join(h.home, 'workspaces', 'agents', 'default');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'big.txt'), `${'0123456789'.repeat(500)}THE END`);
    const before = socket.received.length;
    await message().fill('[tool:file_read {"path":"big.txt"}]');
    await message().press('Enter');
    await eventually('the turn to finish', () => socket.received.slice(before).some((f) => f.type === 'done'), 20_000);
    const output = page.locator('.tool-card', { hasText: 'file_read' }).last();
    await output.locator('summary').click();
    const pre = output.getByLabel('Output', { exact: true });
    expect((await pre.textContent())!.length).toBeLessThan(2100);
    expect(await pre.textContent()).not.toContain('THE END');
    await output.getByRole('button', { name: /^Show all/ }).click();
    await expect(pre.textContent()).resolves.toContain('THE END');
  });

  it('starts a new session with the agent chosen in the picker', async () => {
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByLabel('Agent').selectOption('coder');
    const before = socket.received.length;
    await message().fill('which agent are you?');
    await message().press('Enter');
    const started = await eventually('the started frame', () => socket.received.slice(before).find((f) => f.type === 'started'));
    await eventually('the turn to finish', () => socket.received.slice(before).some((f) => f.type === 'done'), 20_000);
    const { sessions } = (await (await h.api('/v1/sessions')).json()) as { sessions: { id: string; agentId: string }[] };
    expect(sessions.find((s) => s.id === started.sessionId)?.agentId).toBe('coder');
  });

  it('lists who may talk on a channel: the configured sender, and one approved through pairing with when and by whom', async () => {
    // A stranger's request (as their first DM would make it), approved through the API as the owner.
    const outcome = await h.gateway.app
      .get(ChannelAccessService)
      .requestPairing('telegram', { id: '515151', name: 'paired_friend', chatId: '515151' });
    if (outcome.kind !== 'code') throw new Error('no pairing code');
    expect((await h.api('/v1/pairing/approve', { json: { channel: 'telegram', code: outcome.code } })).status).toBe(200);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels and access' }).click();
    const telegram = page.getByRole('region', { name: 'telegram' });
    const configured = telegram.getByRole('row', { name: /^424242 / });
    await configured.waitFor();
    expect(await configured.locator('td').allTextContents()).toEqual(['config file (allow_from)', '—']);
    const paired = telegram.getByRole('row', { name: /^paired_friend \(515151\)/ });
    expect(await paired.locator('td').first().textContent()).toBe('pairing');
    expect(await paired.locator('td').nth(1).textContent()).toMatch(/ by owner$/);
    await expect(telegram.locator('p.hint').textContent()).resolves.toMatch(/pairing code.*only senders on this list.*only when mentioned/);
  });
});
