/**
 * The dashboard end to end in Debian's chromium: everything a newcomer does in the browser, each result
 * checked through the API as well. Screenshots of each screen go to docs/screenshots/ when one is
 * missing or LOGEXPORT_UPDATE_SCREENSHOTS=1 (so ordinary runs leave the committed images alone).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { Browser, Locator, Page } from 'playwright-core';
import { compileSampler } from '../../src/ingest/stages/sample.ts';
import { ShiftedClock } from '../support/shifted-clock.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { chromiumInstalled, distIndex, launchChromium, screenshot as saveScreenshot } from './support/browser.ts';

const email = 'ada@example.com';
const password = 'correct horse battery';

const runs = chromiumInstalled();

const keptBySampling = compileSampler(0.5);
let lastRay = 0;

/**
 * NDJSON events for the job's filter and 0.5 sample rate: exactly `kept` pass both, and some fail the
 * filter (status 200 on /home) or the sampling, so every counter moves. Each carries an X-Custom header.
 */
function eventLines(kept: number): string[] {
  const lines: string[] = [];
  const event = (status: number, requestPath: string) => {
    const rayId = `ray${(lastRay += 1)}`;
    lines.push(
      JSON.stringify({
        RayID: rayId,
        EdgeStartTimestamp: Date.now() * 1_000_000,
        ClientRequestHost: 'example.com',
        ClientRequestPath: requestPath,
        EdgeResponseStatus: status,
        RawRequestHeaders: [['Host', 'example.com'], ['X-Custom', 'hello']],
      }),
    );
    return rayId;
  };
  // A batch spans a queue range, so records the job drops still open it: they come first, and the last
  // line is a kept record, so each round ends exactly on a batch boundary with nothing left open.
  for (let i = 0; i < 40; i += 1) event(200, '/home');
  for (let passed = 0; passed < kept; ) if (keptBySampling({ RayID: event(502, '/api/orders') })) passed += 1;
  return lines;
}

describe('the dashboard in a browser', { skip: !runs }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let zoneId: string;
  let shopZoneId: string;
  let scratchDir: string;
  const clock = new ShiftedClock();

  /** Saves a screenshot of the current screen (see support/browser.ts for where). */
  const screenshot = (name: string, options: { fullPage?: boolean } = {}) => saveScreenshot(page, scratchDir, name, options);

  async function api(method: string, urlPath: string, body?: unknown) {
    const answer = await t.call(method, urlPath, body === undefined ? {} : { body });
    return answer;
  }

  const job = (name: string): Locator => page.getByRole('article', { name });
  const condition = (label: string): Locator => page.getByRole('group', { name: label, exact: true });

  before(async () => {
    assert.ok(fs.existsSync(distIndex), 'web/dist/index.html is missing: build the dashboard with `npm run build:web` (npm ci does it through `prepare`)');
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms' }, { clock });
    scratchDir = fs.mkdtempSync(path.join(t.dataDir, 'screens-'));
    const owner = await t.user(email, password);
    zoneId = await t.zone(owner, 'example.com');
    shopZoneId = await t.zone(owner, 'shop.example.com');
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: t.app.url, locale: 'en-US', timezoneId: 'UTC' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('refuses a wrong password with a message that does not tell whether the e-mail exists', async () => {
    await page.goto('/');
    await assert.doesNotReject(page.getByRole('heading', { name: 'Sign in to logexport' }).waitFor());
    await screenshot('01-sign-in');

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const wrongPassword = await page.getByRole('alert').textContent();
    assert.equal(wrongPassword, 'Incorrect e-mail or password');
    await screenshot('02-sign-in-refused');

    await page.getByLabel('E-mail').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(await page.getByRole('alert').textContent(), wrongPassword);

    const answer = await t.call('POST', '/session', { body: { email, password: 'not the password' }, auth: null });
    assert.equal(answer.status, 401);
    assert.equal(answer.body.errors[0].code, 10401);
  });

  it('signs in and lists the user’s domains to pick from', async () => {
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Choose a domain' }).waitFor();
    assert.ok(await page.getByRole('link', { name: 'shop.example.com' }).isVisible());
    await screenshot('03-domains');

    // The browser's session cookie is what the API sees.
    const session = await page.request.get('/client/v4/session');
    assert.equal(session.status(), 200);
    assert.equal(((await session.json()) as { result: { email: string } }).result.email, email);
  });

  it('adds a request header custom field, which the API then lists in the zone ruleset', async () => {
    await page.getByRole('link', { name: 'example.com', exact: true }).click();
    await page.getByRole('heading', { name: 'Custom Fields' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/zones/${zoneId}/custom-fields`);

    await page.getByRole('button', { name: 'Edit Custom Fields' }).click();
    await page.getByRole('button', { name: 'Set new Custom Field' }).click();
    await page.getByLabel('Field Type').selectOption({ label: 'Request Header' });
    await page.getByLabel('Field Name').fill('x-custom');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'x-custom', exact: true }).waitFor();

    const ruleset = await api('GET', `/zones/${zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`);
    assert.equal(ruleset.status, 200);
    assert.deepEqual(ruleset.body.result.rules.map((r: { action_parameters: unknown }) => r.action_parameters), [{ request_fields: [{ name: 'x-custom' }] }]);
    await screenshot('04-custom-fields');
  });

  it('shows the API’s refusal of an upper-case header name beside the Field Name input', async () => {
    await page.getByRole('button', { name: 'Set new Custom Field' }).click();
    await page.getByLabel('Field Type').selectOption({ label: 'Request Header' });
    await page.getByLabel('Field Name').fill('X-Upper');
    await page.getByRole('button', { name: 'Save' }).click();

    const input = page.getByLabel('Field Name');
    await page.locator('#custom-field-name-error').waitFor();
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    const shown = (await page.locator('#custom-field-name-error').textContent()) ?? '';
    // The same refusal straight from the API, and nothing was stored.
    const refused = await api('PUT', `/zones/${zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`, {
      rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'x-custom' }, { name: 'X-Upper' }] } }],
    });
    assert.equal(refused.status, 400);
    assert.equal(shown, refused.body.errors.map((e: { message: string }) => e.message).join(' '));
    assert.match(shown, /x-upper/);
    await screenshot('05-custom-field-refused');

    const ruleset = await api('GET', `/zones/${zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`);
    assert.deepEqual(ruleset.body.result.rules[0].action_parameters, { request_fields: [{ name: 'x-custom' }] });
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows the API’s refusal of a 41st custom field beside the Field Name input, in another domain', async () => {
    const forty = Array.from({ length: 40 }, (_, i) => ({ name: `x-field-${i + 1}` }));
    const path40 = `/zones/${shopZoneId}/rulesets/phases/http_log_custom_fields/entrypoint`;
    assert.equal((await api('PUT', path40, { rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: forty } }] })).status, 200);

    await page.getByLabel('Domain').selectOption({ label: 'shop.example.com' });
    await page.getByText('40 custom fields configured for shop.example.com').waitFor();
    await page.getByRole('button', { name: 'Edit Custom Fields' }).click();
    // By keyboard this time: the form opens with the focus on Field Type; Tab, type, Enter saves.
    await page.getByRole('button', { name: 'Set new Custom Field' }).press('Enter');
    await page.waitForFunction("document.activeElement !== null && document.activeElement.id === 'custom-field-type'");
    await page.keyboard.press('Tab');
    await page.keyboard.type('x-field-41');
    assert.equal(await page.getByLabel('Field Name').inputValue(), 'x-field-41');
    await page.keyboard.press('Enter');
    await page.locator('#custom-field-name-error').waitFor();
    const shown = (await page.locator('#custom-field-name-error').textContent()) ?? '';
    const refused = await api('PUT', path40, {
      rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [...forty, { name: 'x-field-41' }] } }],
    });
    assert.equal(refused.status, 400);
    assert.equal(shown, refused.body.errors.map((e: { message: string }) => e.message).join(' '));
    assert.match(shown, /40/);
    assert.equal((await api('GET', path40)).body.result.rules[0].action_parameters.request_fields.length, 40);

    await page.getByLabel('Domain').selectOption({ label: 'example.com' });
    await page.getByText('1 custom field configured for example.com').waitFor();
  });

  it('creates a job with a two-condition filter, a file destination and the ownership step', async () => {
    await page.getByRole('link', { name: 'Log export jobs' }).click();
    await page.getByText('No jobs yet').waitFor();
    await page.getByRole('link', { name: 'Add job' }).click();

    // Dataset
    await page.getByRole('heading', { name: 'Step 1 of 6: Dataset' }).waitFor();
    assert.equal(await page.getByLabel('Dataset').inputValue(), 'http_requests');
    await page.getByLabel('Job name').fill('example-errors');
    await screenshot('06-job-dataset');
    await page.getByRole('button', { name: 'Next' }).click();

    // Fields: the defaults plus the custom request headers, ticked already as the zone captures one.
    await page.getByRole('heading', { name: 'Step 2 of 6: Fields' }).waitFor();
    assert.ok(await page.getByLabel('RequestHeaders', { exact: true }).isChecked(), 'the zone captures a request header');
    assert.equal(await page.getByLabel('Cookies', { exact: true }).isChecked(), false, 'but no cookie');
    await page.getByLabel('EdgeResponseStatus', { exact: true }).check();
    await screenshot('07-job-fields');
    await page.getByRole('button', { name: 'Next' }).click();

    // Filter: two conditions joined by "or"; a bad value is caught beside its input first.
    await page.getByRole('heading', { name: 'Step 3 of 6: Filter' }).waitFor();
    await page.getByRole('button', { name: 'Add condition', exact: true }).click();
    await condition('Condition 1').getByLabel('Field').selectOption('EdgeResponseStatus');
    await condition('Condition 1').getByLabel('Operator').selectOption('geq');
    await condition('Condition 1').getByLabel('Value').fill('many');
    await condition('Condition 1').getByRole('alert').waitFor();
    assert.match((await condition('Condition 1').getByRole('alert').textContent()) ?? '', /EdgeResponseStatus is an int field/);
    await condition('Condition 1').getByLabel('Value').fill('500');
    await page.getByRole('button', { name: 'Add condition', exact: true }).click();
    await condition('Condition 2').getByLabel('Field').selectOption('ClientRequestPath');
    await condition('Condition 2').getByLabel('Operator').selectOption('startsWith');
    await condition('Condition 2').getByLabel('Value').fill('/api/');
    await page.getByLabel('Combine with').selectOption('or');
    const filter = JSON.stringify({
      where: {
        or: [
          { key: 'EdgeResponseStatus', operator: 'geq', value: 500 },
          { key: 'ClientRequestPath', operator: 'startsWith', value: '/api/' },
        ],
      },
    });
    assert.equal(await page.getByLabel('Filter JSON').inputValue(), filter);
    assert.equal(await page.getByRole('alert').count(), 0);
    // The live check settles: the server's verdict, or the dashboard's own when the server has no such check.
    await page.getByText(/The server accepts this filter|the server checks it again when the job is saved/).waitFor();
    await screenshot('08-job-filter', { fullPage: true });

    // Preview: the records of the next seconds that the draft filter keeps, before the job is saved.
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText(/Previewing…/).waitFor();
    const previewEvents = [
      ...['p1', 'p2', 'p3'].map((id) => ({ RayID: id, EdgeResponseStatus: 503, ClientRequestPath: '/home' })),
      { RayID: 'p4', EdgeResponseStatus: 200, ClientRequestPath: '/api/cart' },
      ...['p5', 'p6', 'p7', 'p8', 'p9'].map((id) => ({ RayID: id, EdgeResponseStatus: 200, ClientRequestPath: '/home' })),
    ];
    const previewIngest = await t.call('POST', `${t.app.url}/ingest/zones/${zoneId}/http_requests`, { raw: previewEvents.map((e) => JSON.stringify(e)).join('\n') });
    assert.equal(previewIngest.status, 200, previewIngest.text);
    await page.getByText('Preview finished. 4 records kept, 5 left out by the filter, of 9 received.').waitFor({ timeout: 20_000 });
    const previewed = page.getByRole('list', { name: 'Records the filter kept' }).getByRole('listitem');
    assert.equal(await previewed.count(), 4);
    assert.match((await previewed.first().textContent()) ?? '', /"RayID":"p4"/);
    await screenshot('08b-job-filter-preview', { fullPage: true });
    await page.getByRole('button', { name: 'Next' }).click();

    // Destination and the ownership challenge, whose token is read from the file the server wrote.
    await page.getByRole('heading', { name: 'Step 4 of 6: Destination' }).waitFor();
    await page.getByLabel('Destination').fill('file:///example/logs');
    await page.getByRole('button', { name: 'Next' }).click();
    assert.match((await page.locator('#job-ownership-error').textContent()) ?? '', /Write the ownership challenge/);
    await page.getByRole('button', { name: 'Write ownership challenge' }).click();
    const filename = (await page.locator('#challenge-filename').textContent()) ?? '';
    assert.match(filename, /^example\/logs\/ownership-challenge-[0-9a-f]{8}\.txt$/);
    const token = fs.readFileSync(path.join(t.config.exportRoot, filename), 'utf8').trim();
    await page.getByLabel('Ownership token').fill(token);
    await screenshot('09-job-destination');
    await page.getByRole('button', { name: 'Next' }).click();

    // Output options
    await page.getByRole('heading', { name: 'Step 5 of 6: Output options' }).waitFor();
    await page.getByLabel('Timestamp format').selectOption('rfc3339');
    await page.getByLabel('Sample rate').fill('0.5');
    await page.getByLabel('CVE-2021-44228').check();
    await screenshot('10-job-output');
    await page.getByRole('button', { name: 'Next' }).click();

    // Review, then create.
    await page.getByRole('heading', { name: 'Step 6 of 6: Review' }).waitFor();
    assert.ok(await page.getByLabel('Enabled').isChecked());
    await screenshot('11-job-review');
    await page.getByRole('button', { name: 'Create job' }).click();
    await job('example-errors').waitFor();

    const jobs = await api('GET', `/zones/${zoneId}/logexport/jobs`);
    assert.equal(jobs.body.result.length, 1);
    const created = jobs.body.result[0];
    assert.equal(created.name, 'example-errors');
    assert.equal(created.dataset, 'http_requests');
    assert.equal(created.destination_conf, 'file:///example/logs');
    assert.equal(created.enabled, true);
    assert.equal(created.filter, filter);
    assert.ok(created.output_options.field_names.includes('RequestHeaders'));
    assert.ok(created.output_options.field_names.includes('EdgeResponseStatus'));
    assert.equal(created.output_options.timestamp_format, 'rfc3339');
    assert.equal(created.output_options.sample_rate, 0.5);
    assert.equal(created.output_options['CVE-2021-44228'], true);
  });

  it('shows the job’s counters and delivery chart once records flow, with the custom field in the files', async () => {
    const [created] = (await api('GET', `/zones/${zoneId}/logexport/jobs`)).body.result;
    const card = job('example-errors');
    assert.ok(await card.getByText('file:///example/logs').isVisible());
    assert.equal(await card.locator('.badge').textContent(), 'Healthy');

    // Batches close at 1000 records, so each round below delivers whole batches at once.
    assert.equal((await api('PUT', `/zones/${zoneId}/logexport/jobs/${created.id}`, { max_upload_records: 1000 })).status, 200);
    let delivered = 0;
    for (const [minutesAgo, batches] of [[40, 1], [31, 3], [22, 2], [12, 4], [3, 2]] as const) {
      clock.offsetMs = -minutesAgo * 60_000;
      const ingest = await t.call('POST', `${t.app.url}/ingest/zones/${zoneId}/http_requests`, {
        raw: eventLines(batches * 1000).join('\n'),
        headers: { 'content-type': 'application/x-ndjson' },
      });
      assert.equal(ingest.status, 200, ingest.text);
      delivered += batches * 1000;
      for (let tries = 0; ; tries += 1) {
        const stats = await api('GET', `/zones/${zoneId}/logexport/jobs/${created.id}/stats`);
        if (stats.body.result.counters.delivered_records >= delivered) break;
        assert.ok(tries < 400, `the job delivered ${stats.body.result.counters.delivered_records} of ${delivered} records: ${JSON.stringify(stats.body.result)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    clock.offsetMs = 0;

    const stats = (await api('GET', `/zones/${zoneId}/logexport/jobs/${created.id}/stats`)).body.result;
    assert.equal(stats.counters.delivered_records, 12_000);
    assert.ok(stats.counters.filtered_out > 0 && stats.counters.sampled_out > 0);
    await page.reload();
    const shown = (label: string) => card.locator('.counters > div', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
    await shown('Delivered records').filter({ hasText: /\d/ }).waitFor();
    assert.equal(await shown('Delivered records').textContent(), '12,000');
    assert.equal(await shown('Filtered out').textContent(), stats.counters.filtered_out.toLocaleString('en-US'));
    assert.match((await card.getByRole('img').getAttribute('aria-label')) ?? '', /12,000 in total, at most 4,000 in one minute/);
    await screenshot('12-jobs', { fullPage: true });

    // The custom field configured earlier is in the delivered files.
    const directory = path.join(t.config.exportRoot, 'example', 'logs');
    const batch = fs.readdirSync(directory).find((name) => name.endsWith('.log.gz'));
    assert.ok(batch !== undefined, 'no batch file was delivered');
    const first = JSON.parse(gunzipSync(fs.readFileSync(path.join(directory, batch))).toString('utf8').split('\n')[0] ?? '');
    assert.deepEqual(first.RequestHeaders, { 'x-custom': 'hello' });
  });

  it('edits the job through the same steps: the filter becomes an "and" and the destination needs no new proof', async () => {
    await job('example-errors').getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit job: example-errors' }).waitFor();
    assert.equal(await page.getByLabel('Job name').inputValue(), 'example-errors');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('heading', { name: 'Step 3 of 6: Filter' }).waitFor();
    assert.equal(await condition('Condition 2').getByLabel('Value').inputValue(), '/api/');
    await page.getByLabel('Combine with').selectOption('and');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('heading', { name: 'Step 4 of 6: Destination' }).waitFor();
    assert.equal(await page.getByLabel('Ownership token').count(), 0);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Save job' }).click();
    await job('example-errors').waitFor();

    const [stored] = (await api('GET', `/zones/${zoneId}/logexport/jobs`)).body.result;
    assert.deepEqual(Object.keys(JSON.parse(stored.filter).where), ['and']);
    assert.equal(stored.destination_conf, 'file:///example/logs');
  });

  it('disables the job', async () => {
    const card = job('example-errors');
    await card.getByRole('button', { name: 'Disable' }).click();
    await card.getByRole('button', { name: 'Enable' }).waitFor();
    const [stored] = (await api('GET', `/zones/${zoneId}/logexport/jobs`)).body.result;
    assert.equal(stored.enabled, false);
  });

  it('replays a time window from the job card and shows its progress', async () => {
    assert.equal((await api('POST', `/zones/${zoneId}/logs/control/retention/flag`, { flag: true })).status, 200);
    // The events arrive an hour ago, so their hour is over: a replay reads only windows that have passed.
    clock.offsetMs = -3_600_000;
    const from = Math.floor(clock.now() / 3_600_000) * 3_600_000;
    const ingest = await t.call('POST', `${t.app.url}/ingest/zones/${zoneId}/http_requests`, { raw: eventLines(300).join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal(ingest.status, 200, ingest.text);
    const window = `start=${from / 1000}&end=${from / 1000 + 3600}&fields=RayID`;
    for (let tries = 0; (await api('GET', `/zones/${zoneId}/logs/received?${window}`)).text.split('\n').filter((l: string) => l !== '').length < 300; tries++) {
      assert.ok(tries < 100, 'the events were not retained in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    clock.offsetMs = 0;
    const card = job('example-errors');
    await card.getByRole('button', { name: 'Replay a time window' }).click();
    await card.getByLabel('Start (UTC)').fill(new Date(from).toISOString().slice(0, 16));
    await card.getByLabel('End (UTC, not included)').fill(new Date(from + 3_600_000).toISOString().slice(0, 16));
    await card.getByRole('button', { name: 'Start replay' }).click();
    // eventLines(300) holds 300 events the job keeps among others; how many were retained, Logpull says.
    const retained = (await api('GET', `/zones/${zoneId}/logs/received?${window}`)).text.split('\n').filter((l: string) => l !== '').length;
    await card.getByText(new RegExp(`Replay done: ${retained} events read, 300 exported, 1 file written`)).waitFor();
    await screenshot('14-job-replay');
  });

  it('deletes the job only after confirmation', async () => {
    const card = job('example-errors');
    await card.getByRole('button', { name: 'Delete' }).click();
    await card.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await api('GET', `/zones/${zoneId}/logexport/jobs`)).body.result.length, 1);

    await card.getByRole('button', { name: 'Delete' }).click();
    await screenshot('13-job-delete-confirm');
    await card.getByRole('button', { name: 'Yes, delete job' }).click();
    await page.getByText('No jobs yet').waitFor();
    assert.equal((await api('GET', `/zones/${zoneId}/logexport/jobs`)).body.result.length, 0);
  });

  it('watches the domain’s requests live in Instant Logs: filter, counts, a row’s full record, Pause and Clear', async () => {
    await page.getByRole('link', { name: 'Instant Logs' }).click();
    await page.getByRole('heading', { name: 'Instant Logs' }).waitFor();
    await page.getByRole('button', { name: 'Add condition', exact: true }).click();
    await condition('Condition 1').getByLabel('Field').selectOption('EdgeResponseStatus');
    await condition('Condition 1').getByLabel('Operator').selectOption('geq');
    await condition('Condition 1').getByLabel('Value').fill('500');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByText('Live: showing requests as they arrive.').waitFor();
    // The Preview's session may still be listed (a session expires 30 s after its viewer left).
    const listed: { filter: string | null }[] = (await api('GET', `/zones/${zoneId}/logexport/edge/jobs`)).body.result;
    const liveFilter = JSON.stringify({ where: { and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }] } });
    assert.equal(listed.filter((s) => s.filter === liveFilter).length, 1);

    const send = async (events: readonly Record<string, unknown>[]) => {
      const res = await t.call('POST', `${t.app.url}/ingest/zones/${zoneId}/http_requests`, { raw: events.map((e) => JSON.stringify(e)).join('\n') });
      assert.equal(res.status, 200, res.text);
    };
    const events = Array.from({ length: 10 }, (_, i) => ({
      RayID: `live${i}`,
      ClientIP: `198.51.100.${i}`,
      ClientRequestHost: 'example.com',
      ClientRequestMethod: 'GET',
      ClientRequestURI: `/api/orders/${i}`,
      EdgeResponseStatus: i % 5 < 2 ? 502 : 200,
      EdgeResponseBytes: 1000 + i,
      EdgeStartTimestamp: Date.now() * 1_000_000,
    }));
    await send(events);
    const counter = (name: string) => page.locator(`[data-counter="${name}"]`);
    await counter('received').filter({ hasText: /^4$/ }).waitFor();
    await counter('filtered').filter({ hasText: /^6$/ }).waitFor();
    assert.equal(await counter('dropped').textContent(), '0');
    assert.equal(await page.locator('.live-table tbody tr').count(), 4);
    await page.getByRole('button', { name: 'Show record 4' }).click();
    const detail = page.getByRole('region', { name: 'Record 4' });
    // Indented, RayID first, the nanosecond timestamp exactly as received.
    assert.match((await detail.locator('pre').textContent()) ?? '', /^\{\n {2}"RayID": "live6",\n[^]*\n {2}"EdgeResponseStatus": 502,\n {2}"EdgeStartTimestamp": \d{19}\n\}$/);
    await screenshot('15-instant-logs', { fullPage: true });

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused.').waitFor();
    await send(events.map((e) => ({ ...e, RayID: `after-${String(e.RayID)}` })));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await counter('received').textContent(), '4');
    await page.getByRole('button', { name: 'Clear' }).click();
    assert.equal(await counter('received').textContent(), '0');
    assert.equal(await page.locator('.live-table tbody tr').count(), 0);
  });

  it('shows the audit log of what was done in the browser, filtered by action and domain', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const table = page.getByRole('table');
    await table.waitFor();
    for (const action of ['job.create', 'job.disable', 'job.delete', 'session.create']) {
      assert.ok((await table.getByText(action, { exact: true }).count()) > 0, `${action} is listed`);
    }
    assert.ok((await table.getByText(/^ruleset\.(create|update)$/).count()) > 0, 'the custom field changes are listed');
    assert.ok((await table.getByRole('cell', { name: 'Failed' }).count()) > 0, 'the refused sign-in is listed as failed');
    await screenshot('16-audit-log');

    const filters = page.getByRole('form', { name: 'Filters' });
    await filters.getByLabel('Action').selectOption('job.delete');
    await filters.getByLabel('Domain').selectOption('example.com');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    const rows = table.locator('tbody tr');
    await rows.filter({ hasNotText: 'job.delete' }).first().waitFor({ state: 'detached' });
    // The table may be empty for a moment while the filtered page loads: wait for its row too.
    await rows.filter({ hasText: 'job.delete' }).first().waitFor();
    assert.equal(await rows.count(), 1);
    const row = rows.first();
    assert.match((await row.textContent()) ?? '', /job\.delete.*Succeeded.*ada@example\.com.*example\.com/s);
    await row.getByText('job.delete').click();
    assert.match((await row.locator('pre').first().textContent()) ?? '', /"name": "example-errors"/);

    const listed = await api('GET', '/user/audit_logs?action.type=job.delete&zone.name=example.com');
    assert.equal(listed.body.result.length, 1);
    assert.equal(listed.body.result[0].actor.email, email);
  });

  it('signs out, after which the session no longer works', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to logexport' }).waitFor();
    const session = await page.request.get('/client/v4/session');
    assert.notEqual(session.status(), 200);
  });
});
