/**
 * The dashboard shows state a newcomer needs, on a 1280 px screen and on a 390 × 844 phone: each job's
 * health (healthy, retrying, failing, disabled by a user or by logexport) with the last error one click
 * away, lists sorted and filtered by it; a banner while events arrive and no job is enabled; the Sources
 * page; readable Instant Logs records; a new job exporting the zone's custom fields; and no signed-in page
 * wider than the screen.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { fastRetries } from '../e2e/support/data-plane.ts';
import { nativeLine } from '../sources/support/tail-node.ts';
import { ShiftedClock } from '../support/shifted-clock.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { assertPageFits, chromiumInstalled, distIndex, launchChromium, screenshot, signedInPage } from './support/browser.ts';

const email = 'ada@example.com';
const password = 'correct horse battery';
const runs = chromiumInstalled();

/** 2026-05-02T10:00:00.001Z in Unix nanoseconds, the time the Instant Logs events claim. */
const eventNanos = '1777716000001000000';
let lastRay = 0;

/** `n` events every job's filter keeps, as NDJSON. */
function events(n: number, host = 'example.com'): string {
  return Array.from({ length: n }, () =>
    JSON.stringify({
      RayID: `ray${(lastRay += 1)}`,
      ClientIP: '198.51.100.7',
      ClientCountry: 'us',
      ClientRequestHost: host,
      ClientRequestMethod: 'GET',
      ClientRequestPath: '/api/orders',
      ClientRequestURI: '/api/orders?page=1',
      EdgeResponseStatus: 503,
      EdgeStartTimestamp: eventNanos,
      EdgeEndTimestamp: eventNanos,
    }),
  ).join('\n');
}

const widths = [1280, 390] as const;

const jobFilter = JSON.stringify({
  where: {
    and: [
      { key: 'ClientCountry', operator: '!eq', value: 'ca' },
      {
        or: [
          { key: 'EdgeResponseStatus', operator: 'geq', value: 500 },
          { key: 'ClientRequestPath', operator: 'startsWith', value: '/api/' },
        ],
      },
    ],
  },
});

describe('the dashboard’s state at a glance, on a laptop and on a phone', { skip: !runs }, () => {
  const clock = new ShiftedClock();
  let t: TestApp;
  let browser: Browser;
  let tailed: string;
  let zoneId: string;
  let quietZoneId: string;
  const jobIds: Record<string, number> = {};

  async function resultOf(method: string, urlPath: string, body?: unknown) {
    const answer = await t.call(method, urlPath, body === undefined ? {} : { body });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.result;
  }

  async function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    for (let tries = 0; ; tries++) {
      const found = await check();
      if (found !== undefined) return found;
      assert.ok(tries < 600, `waited too long for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Creates an enabled job (or as `body` says) with a file destination, proving its ownership first. */
  async function createJob(name: string, dir: string, body: Record<string, unknown> = {}): Promise<number> {
    const destination = `file:///${dir}`;
    const { filename } = await resultOf('POST', `/zones/${zoneId}/logexport/ownership`, { destination_conf: destination });
    const token = fs.readFileSync(path.join(t.config.exportRoot, filename), 'utf8');
    const job = await resultOf('POST', `/zones/${zoneId}/logexport/jobs`, {
      dataset: 'http_requests',
      name,
      enabled: true,
      destination_conf: destination,
      ownership_challenge: token,
      max_upload_records: 1000,
      output_options: { field_names: ['RayID'] },
      ...body,
    });
    jobIds[name] = job.id;
    return job.id;
  }

  /** Puts a file where the job's destination directory should be, so every delivery fails. */
  function block(dir: string): void {
    const top = path.join(t.config.exportRoot, dir.split('/')[0] ?? '');
    fs.rmSync(top, { recursive: true, force: true });
    fs.writeFileSync(top, 'not a directory');
  }

  async function ingest(zone: string, body: string): Promise<void> {
    const answer = await t.call('POST', `${t.app.url}/ingest/zones/${zone}/http_requests`, { raw: body, headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal(answer.status, 200, answer.text);
  }

  const job = (id: number) => resultOf('GET', `/zones/${zoneId}/logexport/jobs/${id}`);

  before(async () => {
    assert.ok(fs.existsSync(distIndex), 'web/dist/index.html is missing: build the dashboard with `npm run build:web`');
    const logs = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-dashboard-tail-'));
    tailed = path.join(logs, 'access.log');
    fs.writeFileSync(tailed, '');
    t = await startTestApp({ LOGEXPORT_DISABLE_FAILING_JOBS_AFTER: '20m', LOGEXPORT_MAX_JOBS_PER_ZONE: '8', LOGEXPORT_TAIL: `native:${tailed}` }, { clock, retryPolicy: fastRetries, configPollMs: 100, countersFlushMs: 200 });
    const owner = await t.user(email, password);
    zoneId = await t.zone(owner, 'example.com');
    quietZoneId = await t.zone(owner, 'quiet.example');
    await resultOf('PUT', `/zones/${zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`, {
      rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'x-custom' }] } }],
    });

    await createJob('healthy-job', 'healthy', { filter: jobFilter });
    await createJob('switched-off', 'off', { enabled: false });
    // Failing since 30 minutes ago: at its first attempt 10 minutes ago logexport disables it (after 20).
    clock.offsetMs = -30 * 60_000;
    const stale = await createJob('stale-job', 'stale/logs');
    block('stale/logs');
    await ingest(zoneId, events(1000));
    await waitFor('stale-job to fail', async () => ((await job(stale)).last_error !== null ? true : undefined));
    // Failing since 10 minutes ago.
    clock.offsetMs = -10 * 60_000;
    const failing = await createJob('failing-job', 'failing/logs');
    block('failing/logs');
    await ingest(zoneId, events(1000));
    await waitFor('failing-job to fail', async () => ((await job(failing)).last_error !== null ? true : undefined));
    await waitFor('stale-job to be disabled', async () => ((await job(stale)).enabled ? undefined : true));
    // Failing since now.
    clock.offsetMs = 0;
    const retrying = await createJob('retrying-job', 'retrying/logs');
    block('retrying/logs');
    await ingest(zoneId, events(1000));
    await waitFor('retrying-job to fail', async () => ((await job(retrying)).last_error !== null ? true : undefined));
    await waitFor('healthy-job to deliver everything', async () => {
      const stats = await resultOf('GET', `/zones/${zoneId}/logexport/jobs/${jobIds['healthy-job']}/stats`);
      return stats.counters.delivered_records === 3000 ? true : undefined;
    });

    // A domain whose events arrive while no job is enabled, and a tailed file with a bad line (its zones
    // made straight in the store reach host routing at its next read: read them now).
    await t.app.zoneDirectory.refresh();
    await ingest(quietZoneId, events(3, 'quiet.example'));
    fs.appendFileSync(tailed, `${nativeLine('tail-1', 'example.com')}\n${nativeLine('tail-2', 'quiet.example')}\n{"not json\n`);
    await waitFor('the tailed lines, read and handed to ingest', async () => {
      const sources = await resultOf('GET', `/zones/${quietZoneId}/logexport/sources`);
      return sources.tailed_files[0]?.lines_accepted === 2 && sources.ingest?.dropped?.no_job === 4 ? true : undefined;
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
    if (tailed !== undefined) fs.rmSync(path.dirname(tailed), { recursive: true, force: true });
  });

  for (const width of widths) {
    describe(`at ${width} px`, () => {
      let context: BrowserContext;
      let page: Page;
      let scratchDir: string;
      const card = (name: string): Locator => page.getByRole('article', { name });
      const shown = (scope: Locator, label: string) => scope.locator('.counters > div', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');

      /** The page is no wider than the screen, and the top bar holds every one of its items. */
      const assertFits = (what: string) => assertPageFits(page, width, what);

      before(async () => {
        ({ context, page } = await signedInPage(browser, t.app.url, width, { email, password }));
        scratchDir = fs.mkdtempSync(path.join(t.dataDir, `screens-${width}-`));
      });

      after(() => context?.close());

      it('shows each job’s health, the last error one click away, and lists jobs by health', async () => {
        await page.goto(`/zones/${zoneId}/jobs`);
        await card('failing-job').locator('.badge', { hasText: 'Failing' }).waitFor();
        const badges: Record<string, string> = { 'healthy-job': 'Healthy', 'retrying-job': 'Retrying', 'failing-job': 'Failing', 'stale-job': 'Disabled', 'switched-off': 'Disabled' };
        for (const [name, badge] of Object.entries(badges)) assert.equal(await card(name).locator('.badge').textContent(), badge, name);

        const failing = card('failing-job');
        assert.match((await failing.locator('.health-detail p').first().textContent()) ?? '', /^Nothing delivered since .+ \(\d+ failed attempts? in all\)\. logexport keeps trying and disables the job at .+ unless a delivery succeeds first\.$/);
        assert.equal(await failing.getByText(/a file stands where a directory is needed/).isVisible(), false, 'behind a click');
        await failing.getByText('Last error', { exact: true }).click();
        assert.ok(await failing.getByText(/a file stands where a directory is needed for failing\/logs/).isVisible());
        const api = await resultOf('GET', `/zones/${zoneId}/logexport/jobs/${jobIds['failing-job']}`);
        assert.equal(await failing.locator('.error-text').textContent(), api.error_message);

        const retrying = card('retrying-job');
        assert.match((await retrying.locator('.health-detail p').first().textContent()) ?? '', /^The last delivery attempt failed \(.+\)\. logexport tries again, waiting longer each time; 1,000 records wait to be delivered\.$/);
        // Received does not stay 0 while the batch is retried.
        assert.equal(await shown(retrying, 'Received').textContent(), '1,000');
        assert.equal(await shown(retrying, 'Pending').textContent(), '1,000');
        assert.equal(await shown(retrying, 'Delivered records').textContent(), '0');

        assert.match((await card('stale-job').locator('.health-detail p').first().textContent()) ?? '', /^Disabled by logexport on .+ after failing \(no delivery for 20 minutes\)\. Its events stay queued: fix the destination, then choose Enable\.$/);
        assert.match((await card('switched-off').locator('.health-detail p').first().textContent()) ?? '', /^Disabled by ada@example\.com on .+\.$/);
        assert.equal(await card('healthy-job').locator('.health-detail').count(), 0);

        await assertFits('the jobs');
        await screenshot(page, scratchDir, width === 390 ? '21-phone-jobs' : '17-job-health', { fullPage: width !== 390 });

        // Settings read as sentences: the filter as conditions (its JSON one click away), one field.
        const healthy = card('healthy-job');
        assert.equal(await healthy.locator('.filter-text').textContent(), 'ClientCountry ≠ "ca" AND (EdgeResponseStatus ≥ 500 OR ClientRequestPath starts with "/api/")');
        assert.ok(await healthy.getByText('1 field', { exact: true }).isVisible());
        await healthy.getByText('JSON', { exact: true }).click();
        assert.equal(await healthy.locator('.inline-details code').textContent(), jobFilter);
        await assertFits('a filter’s JSON');

        await page.getByLabel('Show').selectOption({ label: 'Failing' });
        await page.getByText('Showing 1 job of 5.').waitFor();
        assert.deepEqual(await page.locator('article.job-card h3').allTextContents(), ['failing-job']);
        await page.getByLabel('Show').selectOption({ label: 'All jobs' });
        await page.getByLabel('Sort by').selectOption({ label: 'Health, worst first' });
        // Worst first; the two disabled jobs by id.
        assert.deepEqual(await page.locator('article.job-card h3').allTextContents(), ['failing-job', 'retrying-job', 'switched-off', 'stale-job', 'healthy-job']);
      });

      it('shows a banner on a domain’s jobs tab while its events arrive and no job is enabled', async () => {
        await page.goto(`/zones/${quietZoneId}/jobs`);
        const banner = page.locator('.warning-banner');
        await banner.waitFor();
        // Three events ingested and a tailed line for the domain.
        assert.match(
          (await banner.textContent()) ?? '',
          /^Events are arriving, but no job is enabled — enable one\.No enabled job exports this domain’s events: 4 events were checked and dropped since this node started( \(the last event came in .+\))?\. “Add job” sets one up in a few steps\.$/,
        );
        await assertFits('the banner');
        if (width === 1280) await screenshot(page, scratchDir, '18-no-job-banner');
        await page.goto(`/zones/${zoneId}/jobs`);
        await card('healthy-job').waitFor();
        assert.equal(await page.locator('.warning-banner').count(), 0, 'a domain with an enabled job');
      });

      it('shows the Sources page: the domain’s ingest figures and each tailed file, as the API gives them', async () => {
        await page.goto(`/zones/${quietZoneId}/sources`);
        const events = page.getByRole('article', { name: /^All ways in/ });
        await events.waitFor();
        const figure = (scope: Locator, key: string) => scope.locator(`[data-figure="${key}"] dd`);
        const api = await resultOf('GET', `/zones/${quietZoneId}/logexport/sources`);
        assert.match((await figure(events, 'dropped').textContent()) ?? '', new RegExp(`^${api.ingest.dropped.no_job}no enabled job: ${api.ingest.dropped.no_job}$`));
        const file = page.getByRole('article', { name: `Tailed file ${tailed}` });
        assert.equal(await figure(file, 'lines_read').textContent(), '3');
        assert.equal(await figure(file, 'lines_rejected').textContent(), '1');
        assert.equal(await figure(file, 'lines_accepted').textContent(), '2');
        assert.match((await figure(file, 'last_error_at').textContent()) ?? '', /\d/);
        await assertFits('Sources');
        await screenshot(page, scratchDir, width === 390 ? '22-phone-sources' : '19-sources', { fullPage: width !== 390 });
      });

      it('shows Instant Logs records readably: dates in UTC or local time, RayID first, indented JSON to copy, chosen columns', async () => {
        await page.goto(`/zones/${zoneId}/instant-logs`);
        await page.getByRole('button', { name: 'Start' }).click();
        await page.getByText('Live: showing requests as they arrive.').waitFor();
        await ingest(zoneId, events(2));
        await page.locator('.live-table tbody tr').nth(1).waitFor();
        assert.equal(await page.locator('.live-table thead th').first().textContent(), 'RayID');
        const column = async (name: string) => (await page.locator('.live-table thead th').allTextContents()).indexOf(name);
        const cellOf = async (name: string) => page.locator('.live-table tbody tr').first().locator('td').nth(await column(name));
        assert.equal(await (await cellOf('EdgeStartTimestamp')).textContent(), '2026-05-02 10:00:00.001 UTC');
        assert.equal(await (await cellOf('EdgeStartTimestamp')).getAttribute('title'), eventNanos);
        await page.getByLabel('Local time').check();
        assert.equal(await (await cellOf('EdgeStartTimestamp')).textContent(), '2026-05-02 15:30:00.001 +05:30');

        await page.getByText(/^Columns \(/).click();
        await page.getByRole('group', { name: 'Columns' }).getByLabel('ClientIP', { exact: true }).uncheck();
        assert.equal(await column('ClientIP'), -1);
        assert.ok((await column('ClientRequestURI')) > 0);

        await page.locator('.live-table tbody tr').first().getByRole('button').click();
        const record = page.locator('.record-detail pre');
        const text = (await record.textContent()) ?? '';
        assert.match(text, /^\{\n {2}"RayID": "ray\d+",\n/);
        assert.match(text, new RegExp(`\\n {2}"EdgeStartTimestamp": ${eventNanos},?\\n`), 'the nanoseconds exactly as received');
        await page.getByRole('button', { name: 'Copy JSON' }).click();
        await page.getByText('Copied the record.').waitFor();
        assert.equal(await page.evaluate('navigator.clipboard.readText()'), text);
        await assertFits('Instant Logs');
        if (width === 390) await screenshot(page, scratchDir, '23-phone-instant-logs');
        await page.getByRole('button', { name: 'Pause' }).click();
      });

      it('ticks the fields of the domain’s custom fields in a new job', async () => {
        await page.goto(`/zones/${zoneId}/jobs/new`);
        await page.getByRole('button', { name: 'Next' }).click();
        await page.getByRole('heading', { name: 'Step 2 of 6: Fields' }).waitFor();
        assert.equal(await page.getByLabel('RequestHeaders', { exact: true }).isChecked(), true, 'example.com captures a request header');
        assert.equal(await page.getByLabel('ResponseHeaders', { exact: true }).isChecked(), false);
        assert.equal(await page.getByLabel('Cookies', { exact: true }).isChecked(), false);
        await page.goto(`/zones/${quietZoneId}/jobs/new`);
        await page.getByRole('button', { name: 'Next' }).click();
        await page.getByRole('heading', { name: 'Step 2 of 6: Fields' }).waitFor();
        assert.equal(await page.getByLabel('RequestHeaders', { exact: true }).isChecked(), false, 'quiet.example has no custom field');
      });

      it('fits every signed-in page into the screen, wide tables scrolling inside their own box', async () => {
        const visit = async (urlPath: string, ready: Locator) => {
          await page.goto(urlPath);
          await ready.waitFor();
          await assertFits(urlPath);
        };
        await visit('/', page.getByRole('heading', { name: 'Choose a domain' }));
        await visit(`/zones/${zoneId}/custom-fields`, page.getByRole('cell', { name: 'x-custom' }));
        await visit(`/zones/${zoneId}/jobs`, card('failing-job').locator('.badge', { hasText: 'Failing' }));
        await card('healthy-job').getByRole('button', { name: 'Replay a time window' }).click();
        await assertFits('the replay form');
        await card('healthy-job').getByRole('button', { name: 'Delete' }).click();
        await assertFits('the delete confirmation');
        await visit(`/zones/${zoneId}/instant-logs`, page.getByRole('heading', { name: 'Instant Logs' }));
        await visit(`/zones/${zoneId}/sources`, page.getByRole('heading', { name: 'Tailed files', level: 3 }));
        // A domain that keeps no events: both tabs offer to keep them.
        await visit(`/zones/${zoneId}/analytics`, page.getByRole('region', { name: 'Events are not kept' }));
        await visit(`/zones/${zoneId}/log-explorer`, page.getByRole('region', { name: 'Events are not kept' }));
        await visit(`/zones/${quietZoneId}/jobs`, page.locator('.warning-banner'));
        // Every step of the wizard, editing a job so each step can be passed.
        await visit(`/zones/${zoneId}/jobs/${jobIds['healthy-job']}/edit`, page.getByRole('heading', { name: 'Step 1 of 6: Dataset' }));
        for (const step of ['Fields', 'Filter', 'Destination', 'Output options', 'Review']) {
          await page.getByRole('button', { name: 'Next' }).click();
          await page.getByRole('heading', { name: new RegExp(`^Step \\d of 6: ${step}$`) }).waitFor();
          await assertFits(`the wizard's ${step} step`);
        }
        await visit(`/zones/${zoneId}/jobs/new`, page.getByRole('heading', { name: 'Step 1 of 6: Dataset' }));
        await visit('/api-tokens', page.getByRole('heading', { name: 'API tokens', level: 1 }));
        await visit('/audit-log', page.locator('.audit-table'));
        const box = await page.locator('.table-box').evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
        if (width === 390) assert.ok(box.scrollWidth > box.clientWidth, 'the audit table scrolls inside its box');
        await page.locator('.audit-table tbody tr').first().locator('summary').click();
        await assertFits('an audit entry opened');
        if (width === 390) await screenshot(page, scratchDir, '24-phone-audit-log');
      });
    });
  }
});
