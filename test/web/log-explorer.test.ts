/**
 * Analytics and Log Explorer in Debian's chromium against a real node, on a 1280 px screen and a 390 × 844
 * phone: the zone's ingested events drawn by range (canvases and legend totals), each panel's SQL opened in
 * Log Explorer, queries run, sorted, refused and cut as the API answers them, results downloaded and
 * copied, and the offer to keep events on a domain that keeps none. Screenshots go to docs/screenshots/
 * when one is missing or LOGEXPORT_UPDATE_SCREENSHOTS=1.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertPageFits, chromiumInstalled, distIndex, launchChromium, screenshot, signedInPage } from './support/browser.ts';

const email = 'ada@example.com';
const password = 'correct horse battery';
const runs = chromiumInstalled();
const widths = [1280, 390] as const;
/** The node's row cap for one answer: the 13 events' RayIDs come back cut. */
const maxRows = 12;

/** The minute offsets (before now) and statuses of the last hour's events: 2xx 6, 3xx 2, 4xx 2, 5xx 2. */
const recent: readonly (readonly [number, number])[] = [
  [1, 200], [1, 200], [1, 503],
  [2, 200], [2, 301], [2, 404],
  [3, 200], [3, 200], [3, 503],
  [4, 200], [4, 404], [4, 301],
];
/** One more event, two days old: in the last 7 days, not in the last hour. */
const twoDaysMs = 2 * 86_400_000;

describe('Analytics and Log Explorer in a browser', { skip: !runs }, () => {
  let t: TestApp;
  let browser: Browser;
  let zoneId: string;
  const quietZones: Record<number, string> = {};
  const startedMs = Date.now();
  const oldEventMs = startedMs - twoDaysMs;

  async function sql(zone: string, text: string) {
    return t.call('POST', `/zones/${zone}/logs/explorer/query/sql`, { raw: text, headers: { 'content-type': 'text/plain' } });
  }

  /** Waits until SQL sees `n` events of the zone: they are kept once the retention writer has flushed them. */
  async function waitForCount(zone: string, n: number): Promise<void> {
    for (let tries = 0; ; tries++) {
      const answer = await sql(zone, 'SELECT count(*) AS n FROM http_requests');
      if (answer.status === 200 && answer.body.result[0]?.n === n) return;
      assert.ok(tries < 800, `the events were not queryable: ${answer.text}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  before(async () => {
    assert.ok(fs.existsSync(distIndex), 'web/dist/index.html is missing: build the dashboard with `npm run build:web`');
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms', LOGEXPORT_SQL_MAX_ROWS: String(maxRows) });
    const owner = await t.user(email, password);
    zoneId = await t.zone(owner, 'example.com');
    for (const width of widths) quietZones[width] = await t.zone(owner, `quiet-${width}.example`);
    const enabled = await t.call('POST', `/zones/${zoneId}/logs/explorer/datasets`, { body: { dataset: 'http_requests', enabled: true } });
    assert.equal(enabled.status, 200, enabled.text);

    const event = (i: number, atMs: number, status: number) => ({
      RayID: `ray${String(i).padStart(4, '0')}`,
      EdgeStartTimestamp: new Date(atMs).toISOString(),
      EdgeEndTimestamp: new Date(atMs + 20).toISOString(),
      ClientRequestHost: i % 3 === 0 ? 'static.example.com' : 'www.example.com',
      ClientRequestPath: `/page/${i % 4}`,
      ClientRequestMethod: 'GET',
      ClientCountry: i % 2 === 0 ? 'de' : 'us',
      ClientRequestUserAgent: i % 2 === 0 ? 'curl/8.5.0' : 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
      CacheCacheStatus: status === 200 ? 'hit' : 'miss',
      EdgeResponseStatus: status,
      EdgeResponseBytes: 1000,
    });
    const lines = recent.map(([minutes, status], i) => JSON.stringify(event(i, startedMs - minutes * 60_000, status)));
    lines.push(JSON.stringify(event(recent.length, oldEventMs, 200)));
    const ingested = await t.call('POST', `${t.app.url}/ingest/zones/${zoneId}/http_requests`, { raw: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal(ingested.status, 200, ingested.text);
    await waitForCount(zoneId, lines.length);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  for (const width of widths) {
    describe(`at ${width} px`, () => {
      let context: BrowserContext;
      let page: Page;
      let scratchDir: string;
      const panel = (title: string): Locator => page.getByRole('article', { name: title });
      const total = (title: string, series: string) => panel(title).locator(`.chart-totals li[data-series="${series}"] strong`);
      const editor = () => page.getByLabel('SQL', { exact: true });
      const resultCells = (column: number) => page.locator(`.result-table tbody tr td:nth-child(${column + 2})`);

      before(async () => {
        ({ context, page } = await signedInPage(browser, t.app.url, width, { email, password }));
        page.setDefaultTimeout(15_000);
        scratchDir = fs.mkdtempSync(path.join(t.dataDir, `screens-${width}-`));
      });

      after(() => context?.close());

      it('draws the last hour’s requests and bytes stacked by status class, the error rate and the top lists', async () => {
        await page.goto(`/zones/${zoneId}`);
        await page.getByRole('navigation', { name: 'Analytics & Logs' }).getByRole('link', { name: 'Analytics' }).click();
        await page.getByRole('heading', { name: 'Analytics', level: 2 }).waitFor();
        assert.equal(new URL(page.url()).pathname, `/zones/${zoneId}/analytics`);
        await total('Top cache statuses', 'x').or(panel('Top cache statuses').getByRole('cell', { name: 'hit' })).first().waitFor();

        assert.equal(await panel('Requests by status class').locator('canvas').count(), 1);
        const requests = Object.fromEntries(await Promise.all(['2xx', '3xx', '4xx', '5xx'].map(async (c) => [c, await total('Requests by status class', c).textContent()])));
        assert.deepEqual(requests, { '2xx': '6', '3xx': '2', '4xx': '2', '5xx': '2' });
        assert.equal(await total('Bytes sent by status class', '2xx').textContent(), '5.9 KiB');
        assert.equal(await total('Error rate', 'server_errors_pct').textContent(), 'peak 33.33%');
        assert.equal(await panel('Top status codes').getByRole('row').nth(1).textContent(), '2006');
        assert.equal(await panel('Top hosts').getByRole('row').nth(1).textContent(), 'www.example.com8');
        assert.equal(await panel('Top user agents').getByRole('cell', { name: 'curl/8.5.0' }).count(), 1);
        // The chart's summary is what a screen reader hears.
        assert.match((await panel('Requests by status class').getByRole('img').getAttribute('aria-label')) ?? '', /2xx 6, 3xx 2, 4xx 2, 5xx 2/);
        await page.locator('.analytics-panel .loading').first().waitFor({ state: 'detached' });
        await assertPageFits(page, width, 'Analytics');
        // On the phone, the first chart fills the screen.
        if (width === 390) await page.evaluate("document.querySelector('.analytics-panel').scrollIntoView()");
        await screenshot(page, scratchDir, width === 390 ? '27-phone-analytics' : '25-analytics', { fullPage: width !== 390 });
      });

      it('shows the last 7 days, and a custom range in UTC, when picked', async () => {
        await page.getByLabel('Last 7 days').check();
        await page.getByRole('status').filter({ hasText: 'in 1 hour steps' }).waitFor();
        await total('Requests by status class', '2xx').filter({ hasText: /^7$/ }).waitFor();

        await page.getByLabel('Custom').check();
        const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16);
        await page.getByLabel('From (UTC)').fill(minute(oldEventMs - 3_600_000));
        await page.getByLabel('To (UTC)').fill(minute(oldEventMs + 3_600_000));
        await page.getByRole('button', { name: 'Show' }).click();
        await page.getByRole('status').filter({ hasText: 'in 1 minute steps' }).waitFor();
        await total('Requests by status class', '2xx').filter({ hasText: /^1$/ }).waitFor();
        // No 5xx in that range: its total goes (waited for, not counted at once: the panel may still be drawing).
        await total('Requests by status class', '5xx').waitFor({ state: 'detached' });

        await page.getByLabel('To (UTC)').fill(minute(oldEventMs - 7_200_000));
        await page.getByRole('button', { name: 'Show' }).click();
        assert.equal(await page.locator('.range-picker').getByRole('alert').textContent(), 'The end must be after the start.');
        await page.getByLabel('Last hour').check();
        await total('Requests by status class', '2xx').filter({ hasText: /^6$/ }).waitFor();
      });

      it('opens a panel’s SQL in Log Explorer and runs it there', async () => {
        // The panels answer one after another: the last hour's answer is in this one before its SQL is read.
        await panel('Top hosts').getByRole('row').filter({ hasText: 'www.example.com8' }).waitFor();
        const shownSql = (await panel('Top hosts').locator('.panel-sql pre').textContent()) ?? '';
        await panel('Top hosts').getByRole('button', { name: 'Open in Log Explorer' }).click();
        await page.getByRole('heading', { name: 'Log Explorer', level: 2 }).waitFor();
        assert.equal(new URL(page.url()).pathname, `/zones/${zoneId}/log-explorer`);
        assert.equal(await editor().inputValue(), shownSql);
        await page.locator('.result-table').waitFor();
        assert.deepEqual(await resultCells(0).allTextContents(), ['www.example.com', 'static.example.com']);
        assert.deepEqual(await resultCells(1).allTextContents(), ['8', '4']);
      });

      it('runs a query with Ctrl+Enter, sorts by a clicked header, and charts a result over time', async () => {
        await editor().fill('SELECT EdgeResponseStatus AS status, count(*) AS requests\nFROM http_requests\nGROUP BY status\nORDER BY status');
        await editor().press('Control+Enter');
        await page.getByRole('status').filter({ hasText: '4 rows.' }).waitFor();
        assert.deepEqual(await resultCells(0).allTextContents(), ['200', '301', '404', '503']);
        assert.equal(await page.locator('.time-chart').count(), 0);
        assert.match((await page.locator('main').textContent()) ?? '', /No chart: the result has no date-time column\./);

        await page.locator('.result-table').getByRole('button', { name: 'requests', exact: true }).click();
        assert.equal(await page.getByRole('columnheader', { name: 'requests' }).getAttribute('aria-sort'), 'ascending');
        assert.deepEqual(await resultCells(0).allTextContents(), ['301', '404', '503', '200']);
        await page.locator('.result-table').getByRole('button', { name: 'requests', exact: true }).click();
        assert.equal(await page.getByRole('columnheader', { name: 'requests' }).getAttribute('aria-sort'), 'descending');
        assert.deepEqual(await resultCells(0).allTextContents(), ['200', '301', '404', '503']);

        await page.getByText('Example queries').click();
        await page.getByRole('button', { name: 'Requests per minute by status class, last hour' }).click();
        assert.match(await editor().inputValue(), /^SELECT date_trunc\('minute', EdgeStartTimestamp\) AS minute,/);
        await page.getByRole('button', { name: 'Run', exact: true }).click();
        await page.locator('.time-chart canvas').waitFor();
        assert.equal(await page.locator('.chart-totals li[data-series="2xx"] strong').textContent(), '6');
        await assertPageFits(page, width, 'Log Explorer with a chart');
        // On the phone, the result's chart and table fill the screen.
        if (width === 390) await page.evaluate("document.querySelector('.time-chart').scrollIntoView()");
        await screenshot(page, scratchDir, width === 390 ? '28-phone-log-explorer' : '26-log-explorer', { fullPage: width !== 390 });
      });

      it('inserts a clicked column at the cursor', async () => {
        await editor().fill('SELECT  FROM http_requests');
        await page.evaluate("document.getElementById('explorer-sql').setSelectionRange(7, 7)");
        await page.getByRole('list', { name: 'Columns' }).getByRole('button', { name: 'ClientCountry', exact: true }).click();
        assert.equal(await editor().inputValue(), 'SELECT ClientCountry FROM http_requests');
      });

      it('shows the API’s refusal under the editor, and says when the result was cut', async () => {
        const bad = 'SELECT NoSuchField FROM http_requests';
        await editor().fill(bad);
        await page.getByRole('button', { name: 'Run', exact: true }).click();
        const refused = await sql(zoneId, bad);
        assert.equal(refused.status, 400);
        const expected = refused.body.errors.map((e: { message: string }) => e.message).join(' ');
        const alert = page.locator('#explorer-sql-error').getByRole('alert');
        await alert.waitFor();
        // The alert is shown once the answer came; its text is the API's, waited for rather than read at once.
        await page.waitForFunction(`document.querySelector('#explorer-sql-error [role=alert]')?.textContent === ${JSON.stringify(expected)}`).catch(() => undefined);
        assert.equal(await alert.textContent(), expected);
        assert.equal(await editor().getAttribute('aria-invalid'), 'true');

        const all = 'SELECT RayID AS ray_id FROM http_requests ORDER BY ray_id';
        await editor().fill(all);
        await page.getByRole('button', { name: 'Run', exact: true }).click();
        await page.getByRole('status').filter({ hasText: `${maxRows} rows.` }).waitFor();
        const cut = await sql(zoneId, all);
        assert.equal(cut.body.result_info.truncated, true);
        const notice = (await page.locator('.result-cut').textContent()) ?? '';
        assert.match(notice, /^The result was cut: /);
        for (const message of cut.body.messages as { message: string }[]) assert.ok(notice.includes(message.message), `${notice} names ${message.message}`);
      });

      it('downloads the result as CSV and NDJSON, and copies a row as JSON', async () => {
        await editor().fill('SELECT EdgeResponseStatus AS status, count(*) AS requests FROM http_requests GROUP BY status ORDER BY status');
        await page.getByRole('button', { name: 'Run', exact: true }).click();
        await page.getByRole('status').filter({ hasText: '4 rows.' }).waitFor();
        const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
        assert.equal(fs.readFileSync((await csv.path()) ?? '', 'utf8'), 'status,requests\r\n200,7\r\n301,2\r\n404,2\r\n503,2\r\n');
        assert.match(csv.suggestedFilename(), /^log-explorer-.*\.csv$/);
        const [ndjson] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download NDJSON' }).click()]);
        assert.equal(fs.readFileSync((await ndjson.path()) ?? '', 'utf8').split('\n')[0], '{"status":200,"requests":7}');
        await page.getByRole('button', { name: 'Copy row 2 as JSON' }).click();
        await page.getByText('Copied row 2 as JSON.').waitFor();
        assert.equal(await page.evaluate('navigator.clipboard.readText()'), '{\n  "status": 301,\n  "requests": 2\n}');
      });

      it('offers to keep a quiet domain’s events, and keeps them with one click', async () => {
        const quiet = quietZones[width] ?? '';
        // At one width the zone has a dataset already, switched off: the click switches it on (PUT), not a second one.
        if (width === 390) assert.equal((await t.call('POST', `/zones/${quiet}/logs/explorer/datasets`, { body: { dataset: 'http_requests', enabled: false } })).status, 200);
        await page.goto(`/zones/${quiet}/log-explorer`);
        const notice = page.getByRole('region', { name: 'Events are not kept' });
        await notice.waitFor();
        assert.match((await notice.textContent()) ?? '', new RegExp(`quiet-${width}\\.example keeps no events`));
        await assertPageFits(page, width, 'the offer to keep events');
        await notice.getByRole('button', { name: /Keep HTTP requests/ }).click();
        await notice.waitFor({ state: 'detached' });
        const datasets = await t.call('GET', `/zones/${quiet}/logs/explorer/datasets`);
        assert.deepEqual(
          datasets.body.result.map((d: { dataset: string; enabled: boolean }) => [d.dataset, d.enabled]),
          [['http_requests', true]],
        );
        await page.goto(`/zones/${quiet}/analytics`);
        await page.getByRole('article', { name: 'Top hosts' }).getByText('No requests in this range.').waitFor();
        assert.equal(await page.getByRole('region', { name: 'Events are not kept' }).count(), 0);

        // Kept from now on: an event that arrives now shows after Refresh.
        const line = JSON.stringify({ RayID: `quiet${width}`, EdgeStartTimestamp: new Date().toISOString(), ClientRequestHost: `quiet-${width}.example`, EdgeResponseStatus: 200 });
        assert.equal((await t.call('POST', `${t.app.url}/ingest/zones/${quiet}/http_requests`, { raw: line, headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
        await waitForCount(quiet, 1);
        await page.getByRole('button', { name: 'Refresh' }).click();
        await panel('Top hosts').getByRole('cell', { name: `quiet-${width}.example` }).waitFor();
      });
    });
  }
});
