/**
 * What the browser suites share: whether Debian's chromium is there, launching it, and screenshots for
 * docs/screenshots/ — written only when one is missing or LOGEXPORT_UPDATE_SCREENSHOTS=1, so ordinary runs
 * leave the committed images alone (other runs write them to a scratch directory).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumInstalled, chromiumPath } from '../../support/chromium.ts';

export { chromiumInstalled };
export const distIndex = fileURLToPath(new URL('../../../web/dist/index.html', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));

/** Starts headless chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Saves a screenshot of the page as docs/screenshots/<name>.png (see the file comment for when). */
export async function screenshot(page: Page, scratchDir: string, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  fs.mkdirSync(screenshotDir, { recursive: true });
  const committed = path.join(screenshotDir, `${name}.png`);
  const update = process.env.LOGEXPORT_UPDATE_SCREENSHOTS === '1' || !fs.existsSync(committed);
  await page.screenshot({ path: update ? committed : path.join(scratchDir, `${name}.png`), fullPage: options.fullPage ?? false, animations: 'disabled' });
}

/** Run in the page: its width, and the texts of the top bar's items that reach outside the bar. */
const measureScript = `(() => {
  const bar = document.querySelector('.top-bar')?.getBoundingClientRect();
  const outside = [...document.querySelectorAll('.top-bar > *:not(.skip-link)')]
    .filter((item) => {
      const box = item.getBoundingClientRect();
      return bar !== undefined && (box.right > bar.right + 0.5 || box.bottom > bar.bottom + 0.5 || box.left < bar.left - 0.5);
    })
    .map((item) => item.textContent);
  // The innermost elements past the right edge, to name in a failure.
  const wide = [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 && ![...e.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 0.5))
    .slice(0, 5)
    .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ').join('.') : ''));
  return { scrollWidth: document.documentElement.scrollWidth, outside, wide };
})()`;

/** The page is no wider than the screen, and the top bar holds every one of its items. */
export async function assertPageFits(page: Page, width: number, what: string): Promise<void> {
  const measured = (await page.evaluate(measureScript)) as { scrollWidth: number; outside: string[]; wide: string[] };
  assert.ok(measured.scrollWidth <= width, `${what}: the page is ${measured.scrollWidth} px wide on a ${width} px screen (${measured.wide.join(', ')})`);
  assert.deepEqual(measured.outside, [], `${what}: items outside the top bar`);
}

/** Signs in through the form and waits for the list of domains. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Choose a domain' }).waitFor();
}

/**
 * A signed-in page on a screen `width` px wide (a 390 × 844 phone, or 800 px high), in India's time zone so
 * that UTC and local times differ, allowed to use the clipboard and to download.
 */
export async function signedInPage(browser: Browser, baseURL: string, width: number, user: { readonly email: string; readonly password: string }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width, height: width === 390 ? 844 : 800 },
    baseURL,
    locale: 'en-US',
    timezoneId: 'Asia/Kolkata',
    permissions: ['clipboard-read', 'clipboard-write'],
    acceptDownloads: true,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await signIn(page, user.email, user.password);
  return { context, page };
}
