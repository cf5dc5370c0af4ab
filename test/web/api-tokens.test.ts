/**
 * The dashboard's API tokens page in Debian's chromium: create a token (its value shown once), see it
 * listed with its domain and permission, use it, revoke it — each result checked through the API.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumInstalled, chromiumPath } from '../support/chromium.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { signIn } from './support/browser.ts';

const distIndex = fileURLToPath(new URL('../../web/dist/index.html', import.meta.url));
const email = 'tokens@example.com';
const password = 'correct horse battery';


describe('the API tokens page in a browser', { skip: !chromiumInstalled() }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let owner: { email: string; key: string; userId: string };
  let zoneId: string;
  let value = '';

  before(async () => {
    assert.ok(fs.existsSync(distIndex), 'web/dist/index.html is missing: build the dashboard with `npm run build:web`');
    t = await startTestApp();
    owner = await t.user(email, password);
    zoneId = await t.zone(owner, 'tokens-page.example');
    await t.zone(owner, 'other-page.example');
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: t.app.url, locale: 'en-US', timezoneId: 'UTC' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, email, password);
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('opens from the top bar and says there are no tokens yet', async () => {
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await page.getByText('You have no API tokens.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/api-tokens');
  });

  it('creates a token for one domain with one permission and shows its value once', async () => {
    const form = page.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Token name').fill('shipper');
    await form.getByLabel('tokens-page.example').check();
    await form.getByLabel('Logs Ingest').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('status', { name: 'New token' });
    await shown.waitFor();
    value = (await shown.locator('code').textContent()) ?? '';
    assert.match(value, /^[A-Za-z0-9_-]{40}$/);
    const row = page.getByRole('row', { name: 'shipper' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /tokens-page\.example.*Logs Ingest.*active/);

    // The value works as scoped, and the API never shows it again.
    const ingest = await fetch(`${t.app.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: { authorization: `Bearer ${value}` }, body: '{"RayID":"page1"}\n' });
    assert.equal(ingest.status, 200);
    const listed = await t.call('GET', '/user/tokens', { auth: owner });
    assert.deepEqual(listed.body.result.map((tok: { name: string }) => tok.name), ['shipper']);
    assert.ok(!listed.text.includes(value));
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('row', { name: 'shipper' }).waitFor();
    assert.equal(await page.getByText(value).count(), 0, 'gone after Done and a reload');
  });

  it('shows the API’s refusal when no permission is chosen', async () => {
    const form = page.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Token name').fill('nothing');
    await form.getByLabel('other-page.example').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /permission_groups/);
    assert.equal((await t.call('GET', '/user/tokens', { auth: owner })).body.result.length, 1);
  });

  it('revokes the token after confirmation; it is refused at once', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke shipper' }).click();
    await page.getByText('You have no API tokens.').waitFor();
    const refused = await fetch(`${t.app.url}/ingest/zones/${zoneId}/http_requests`, { method: 'POST', headers: { authorization: `Bearer ${value}` }, body: '{"RayID":"page2"}\n' });
    assert.equal(refused.status, 403);
    const audit = await t.call('GET', '/user/audit_logs?action.type=token.delete', { auth: owner });
    assert.equal(audit.body.result.length, 1);
  });
});
