/**
 * What the browser suites share: whether Debian's chromium is there, launching it, and screenshots for
 * docs/screenshots/ — written only when one is missing or LOGEXPORT_UPDATE_SCREENSHOTS=1, so ordinary runs
 * leave the committed images alone (other runs write them to a scratch directory).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
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
