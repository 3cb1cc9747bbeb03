import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import { systemTool } from './system-tools';

/**
 * What the web app's browser tests share (web.e2e-spec.ts, web-review.e2e-spec.ts): the app built
 * as `npm start` builds it, Debian's chromium, a fresh profile that fails the test on a request to
 * another server or a CSP violation and counts the user's clicks, axe, and screenshots in
 * test-output/web.
 */
export const ROOT = resolve(__dirname, '../../../..');
export const SHOTS = join(ROOT, 'test-output', 'web');
export const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
];
/** Counts the user's clicks in the page (trusted events only); a reload would start it again at 0. */
const CLICK_COUNTER = `window.__clicks = 0; document.addEventListener('click', (e) => { if (e.isTrusted) window.__clicks++; }, true);`;

/** The app as `npm start` builds it (only when its output is missing or stale). */
export function buildWebApp(): void {
  const res = spawnSync(process.execPath, [join(ROOT, 'tools', 'start', 'build-web.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`web build failed: ${res.stderr}`);
  mkdirSync(SHOTS, { recursive: true });
}

/** Debian's chromium, headless (starting it takes seconds on an idle machine, over a minute on a loaded CI box). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: systemTool('chromium') ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 170_000,
  });
}

/** A fresh browser profile on the app, noting any request to another server, CSP violation or page error in `problems`. */
export async function openPage(
  browser: Browser,
  appUrl: string,
  viewport = VIEWPORTS[0],
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(appUrl) && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) problems.push(`request to ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content[- ]Security[- ]Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.addInitScript(CLICK_COUNTER);
  return { context, page, problems };
}

export async function signIn(page: Page, appUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${appUrl}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Pipeline' }).waitFor();
}

/** axe on the page as it is: no serious or critical violation of WCAG 2.1 A/AA. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const summary = serious.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect({ page: name, violations: summary }).toEqual({ page: name, violations: [] });
}

/** test-output/web/<name>-<width>x<height>[-full].png */
export async function shoot(page: Page, name: string, fullPage = false): Promise<void> {
  const { width, height } = page.viewportSize()!;
  await page.screenshot({ path: join(SHOTS, `${name}-${width}x${height}${fullPage ? '-full' : ''}.png`), fullPage });
}

/** The user's clicks since the page was loaded. */
export const clicks = (page: Page): Promise<number> => page.evaluate<number>('window.__clicks');
