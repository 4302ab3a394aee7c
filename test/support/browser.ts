import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';

// What the callbacks run in the page (page.evaluate, addInitScript) touch: this project's TypeScript lib has no DOM.
interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}
declare const window: { __cspViolations: string[]; axe: { run(context: unknown, options: object): Promise<AxeResult> } };
declare const document: {
  addEventListener(type: 'securitypolicyviolation', listener: (e: { violatedDirective: string; blockedURI: string }) => void): void;
};

/** Debian's Chromium (found by host-tools.ts), headless; no sandbox because CI runs as root in a container. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--headless'] });
}

/** What a page sent and received on its WebSocket, parsed, in order. */
export interface SocketLog {
  sent: Record<string, unknown>[];
  received: Record<string, unknown>[];
}

/**
 * A page that records its WebSocket frames, script errors and CSP violations (the violations through
 * a listener added before any of the page's scripts run; Playwright's init scripts are not subject
 * to the page's CSP).
 */
export async function recordedPage(context: BrowserContext): Promise<{ page: Page; socket: SocketLog; errors: string[] }> {
  const page = await context.newPage();
  const socket: SocketLog = { sent: [], received: [] };
  const errors: string[] = [];
  const parse = (payload: string | Buffer) => JSON.parse(payload.toString()) as Record<string, unknown>;
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => socket.sent.push(parse(f.payload)));
    ws.on('framereceived', (f) => socket.received.push(parse(f.payload)));
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return { page, socket, errors };
}

export const cspViolations = (page: Page) => page.evaluate(() => window.__cspViolations);

const AXE_SOURCE = () => readFileSync(join(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now, as "rule: selector" lines. */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE() });
  return page.evaluate(async () => {
    const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** Signs in through the page's form with `token` (the way a person does) and waits for the navigation. */
export async function signInThroughForm(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Token or login code').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).waitFor();
}

/**
 * axe-core's serious and critical violations on one page of the UI in both themes and both languages,
 * keyed `"<theme> <lang> <path>"`. axe is injected inline, which the page's own CSP refuses: the audit
 * runs in a second context without it that shares `signedIn`'s cookie. `prepare` brings the page to the
 * state to audit (results shown, a dialog open) after the language is chosen.
 */
export async function a11yViolationsInThemesAndLanguages(
  browser: Browser,
  signedIn: Page,
  url: string,
  path: string,
  prepare: (page: Page, lang: 'en' | 'zh-CN') => Promise<void>,
): Promise<Record<string, string[]>> {
  const audit = await browser.newContext({ bypassCSP: true, storageState: await signedIn.context().storageState() });
  const p = await audit.newPage();
  const found: Record<string, string[]> = {};
  for (const theme of ['light', 'dark'] as const) {
    for (const lang of ['en', 'zh-CN'] as const) {
      await p.emulateMedia({ colorScheme: theme });
      await p.goto(`${url}${path}`);
      await p.locator('.settings select').first().selectOption(lang);
      await prepare(p, lang);
      found[`${theme} ${lang} ${path}`] = await seriousA11yViolations(p);
    }
  }
  await audit.close();
  return found;
}
