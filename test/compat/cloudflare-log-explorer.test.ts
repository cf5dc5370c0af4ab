/**
 * The official `cloudflare` npm client drives Log Explorer against a real node: datasets (available,
 * create, list, get, update, delete) and `query.sql`, over events ingested through the HTTP ingest endpoint
 * while the zone's `http_requests` dataset was enabled (the retention flag stays off). SQL answers are held
 * against counts the test computes itself over the same events. The node's clock is a manual one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Cloudflare from 'cloudflare';
import { ManualClock } from '../../src/core/clock.ts';
import { waitAdvancing } from '../support/advancing-wait.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { ingestAs } from '../support/zone-ingest.ts';

const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);
const baseNs = 1_790_000_000_000_000_000n;
const statuses = [200, 200, 200, 301, 404, 200, 500, 200, 404, 503];

interface Generated {
  readonly RayID: string;
  readonly EdgeStartTimestamp: string;
  readonly EdgeEndTimestamp: string;
  readonly ClientIP: string;
  readonly ClientRequestHost: string;
  readonly ClientRequestMethod: string;
  readonly ClientRequestURI: string;
  readonly EdgeResponseBytes: number;
  readonly EdgeResponseStatus: number;
  readonly RawRequestHeaders: readonly (readonly [string, string])[];
}

/** Event `i`: a status from a fixed cycle, a start time 7 s apart (so minutes hold 8 or 9), a client from a skewed set. */
function explorerEvent(i: number, tag: string): Generated {
  const startNs = baseNs + BigInt(i) * 7_000_000_000n;
  return {
    RayID: `${tag}${i.toString(16).padStart(7, '0')}`,
    EdgeStartTimestamp: startNs.toString(),
    EdgeEndTimestamp: (startNs + 12_000_000n).toString(),
    ClientIP: `198.51.100.${i % 7 === 0 ? 1 : i % 3 === 0 ? 2 : (i % 11) + 10}`,
    ClientRequestHost: 'www.example.com',
    ClientRequestMethod: i % 4 === 0 ? 'POST' : 'GET',
    ClientRequestURI: `/p/${i}`,
    EdgeResponseBytes: 1000 + i,
    EdgeResponseStatus: statuses[i % statuses.length] as number,
    RawRequestHeaders: [
      ['Host', 'www.example.com'],
      ['User-Agent', i % 2 === 0 ? 'curl/8.5.0' : 'Mozilla/5.0'],
    ],
  };
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}


describe('Log Explorer through the official client', () => {
  let t: TestApp;
  let client: Cloudflare;
  let zoneId: string;
  let owner: { email: string; key: string; userId: string };
  let datasetId: string;
  const clock = new ManualClock(t0);
  const events = Array.from({ length: 300 }, (_, i) => explorerEvent(i, 'e'));

  const ingest = (batch: readonly Generated[]): Promise<void> => ingestAs(t, owner, zoneId, batch.map((e) => JSON.stringify(e)).join('\n') + '\n');

  const sql = async (query: string): Promise<Record<string, unknown>[]> => {
    const rows: Record<string, unknown>[] = [];
    // The client sends its body as it is, with Content-Type text/plain: a File of the query text, as its type asks.
    for await (const row of client.logs.logExplorer.query.sql(new File([query], 'query.sql', { type: 'text/plain' }), { zone_id: zoneId })) rows.push(row);
    return rows;
  };

  const count = async (where = 'true'): Promise<number> => Number((await sql(`SELECT count(*) AS n FROM http_requests WHERE ${where}`))[0]?.n);

  before(async () => {
    t = await startTestApp({ LOGEXPORT_RETENTION_FLUSH: '100ms', LOGEXPORT_SQL_MAX_ROWS: '250' }, { clock });
    owner = await t.user();
    zoneId = await t.zone(owner, 'explorer.example');
    client = new Cloudflare({ apiEmail: owner.email, apiKey: owner.key, baseURL: t.baseUrl, maxRetries: 0 });
    // Capture the user agent, so RequestHeaders is a map to query by key.
    const ruleset = (await client.rulesets.create({ zone_id: zoneId, name: 'custom fields', kind: 'zone', phase: 'http_log_custom_fields' })) as { id: string };
    await client.rulesets.update(ruleset.id, {
      zone_id: zoneId,
      rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'user-agent' }] } }],
    });
  });
  after(async () => t.stop());

  it('lists the http_requests dataset as available, with its JSON schema and timestamp field', async () => {
    const available = [];
    for await (const entry of client.logs.logExplorer.datasets.available.list({ zone_id: zoneId })) available.push(entry);
    assert.equal(available.length, 1);
    const [entry] = available;
    assert.equal(entry?.dataset, 'http_requests');
    assert.equal(entry?.object_type, 'zone');
    assert.equal(entry?.timestamp_field, 'EdgeStartTimestamp');
    const properties = entry?.schema.properties as Record<string, { type: string; format?: string }>;
    assert.deepEqual(properties.EdgeStartTimestamp?.format, 'date-time');
    assert.equal(properties.EdgeResponseStatus?.type, 'integer');
    assert.equal(properties.RequestHeaders?.type, 'object');
  });

  it('creates, lists and gets a dataset, and refuses a second of the same type', async () => {
    const created = await client.logs.logExplorer.datasets.create({ zone_id: zoneId, dataset: 'http_requests' });
    datasetId = created.dataset_id;
    assert.match(datasetId, /^[0-9a-f]{32}$/);
    assert.equal(created.enabled, true);
    assert.equal(created.object_type, 'zone');
    assert.equal(created.object_id, zoneId);
    assert.equal(created.deletion_protection, false);
    assert.ok(created.fields.length > 50 && created.fields.every((f) => f.enabled && f.name === f.name.toLowerCase()));
    assert.equal(created.filter, undefined);
    const listed = [];
    for await (const summary of client.logs.logExplorer.datasets.list({ zone_id: zoneId })) listed.push(summary);
    assert.deepEqual(
      listed.map((d) => [d.dataset_id, d.dataset, 'fields' in d]),
      [[datasetId, 'http_requests', false]],
    );
    const got = await client.logs.logExplorer.datasets.get(datasetId, { zone_id: zoneId });
    assert.deepEqual(got, created);
    await assert.rejects(client.logs.logExplorer.datasets.create({ zone_id: zoneId, dataset: 'http_requests' }), (e: unknown) => (e as { status?: number }).status === 400);
  });

  it('answers SQL over what the enabled dataset kept, as independent counts over the same events say', async () => {
    await ingest(events.slice(0, 150));
    clock.advance(1000);
    await ingest(events.slice(150));
    await waitAdvancing(async () => (await count()) === events.length, 'the retained events', clock);

    const byStatus = await sql('SELECT EdgeResponseStatus, count(*) AS requests FROM http_requests GROUP BY EdgeResponseStatus ORDER BY EdgeResponseStatus');
    const expectedStatus = [...countBy(events, (e) => String(e.EdgeResponseStatus))].sort((a, b) => Number(a[0]) - Number(b[0]));
    assert.deepEqual(
      byStatus,
      expectedStatus.map(([status, n]) => ({ edgeresponsestatus: Number(status), requests: n })),
    );

    const series = await sql("SELECT date_trunc('minute', EdgeStartTimestamp) AS minute, count(*) AS requests FROM http_requests GROUP BY minute ORDER BY minute");
    const minuteOf = (e: Generated) => new Date(Number(BigInt(e.EdgeStartTimestamp) / 60_000_000_000n) * 60_000).toISOString().replace('.000Z', 'Z');
    const expectedSeries = [...countBy(events, minuteOf)].sort((a, b) => a[0].localeCompare(b[0]));
    assert.deepEqual(
      series,
      expectedSeries.map(([minute, n]) => ({ minute, requests: n })),
    );

    const top = await sql('SELECT ClientIP, count(*) AS requests FROM http_requests GROUP BY ClientIP ORDER BY requests DESC, ClientIP LIMIT 3');
    const expectedTop = [...countBy(events, (e) => e.ClientIP)].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3);
    assert.deepEqual(
      top,
      expectedTop.map(([ip, n]) => ({ clientip: ip, requests: n })),
    );

    const agents = await sql("SELECT RequestHeaders['user-agent'] AS agent, count(*) AS n FROM http_requests GROUP BY agent ORDER BY agent");
    assert.deepEqual(agents, [
      { agent: 'Mozilla/5.0', n: 150 },
      { agent: 'curl/8.5.0', n: 150 },
    ]);

    const distinct = await sql('SELECT DISTINCT ClientRequestMethod FROM http_requests ORDER BY 1');
    assert.deepEqual(distinct, [{ clientrequestmethod: 'GET' }, { clientrequestmethod: 'POST' }]);
  });

  it('answers values as JSON: numbers, RFC 3339 timestamps, maps as objects, NULL as null', async () => {
    const [row] = await sql("SELECT RayID, EdgeStartTimestamp, EdgeResponseBytes, RequestHeaders, ClientCountry, EdgeStartTimestamp >= now() - INTERVAL '1' HOUR AS recent FROM http_requests WHERE RayID = 'e0000003'");
    assert.deepEqual(row, {
      rayid: 'e0000003',
      edgestarttimestamp: '2026-09-21T14:13:41Z',
      edgeresponsebytes: 1003,
      requestheaders: { 'user-agent': 'Mozilla/5.0' },
      clientcountry: null,
      recent: false,
    });
    const [big] = await sql('SELECT 9007199254740993::BIGINT AS big, 42::HUGEINT AS small, 1.5 AS half');
    assert.deepEqual(big, { big: '9007199254740993', small: 42, half: 1.5 });
  });

  it('answers the same over the hot tier and after compaction', async () => {
    const queries = [
      'SELECT EdgeResponseStatus, count(*) AS n, sum(EdgeResponseBytes) AS bytes FROM http_requests GROUP BY 1 ORDER BY 1',
      "SELECT date_trunc('minute', EdgeStartTimestamp) AS minute, count(*) AS n FROM http_requests GROUP BY 1 ORDER BY 1",
      "SELECT RayID, EdgeStartTimestamp, EdgeEndTimestamp, RequestHeaders, BotDetectionIDs FROM http_requests WHERE RayID IN ('e0000000', 'e0000011', 'e000012b') ORDER BY RayID",
    ];
    const hot = [];
    for (const q of queries) hot.push(await sql(q));
    const before = await t.app.retention.segments.list(`${zoneId}/`);
    assert.ok(before.some((e) => e.key.endsWith('.ndjson.zst')));
    await t.app.retention.compactor.compactNow();
    const afterKeys = (await t.app.retention.segments.list(`${zoneId}/`)).map((e) => e.key);
    assert.ok(afterKeys.some((k) => k.endsWith('.parquet')));
    assert.ok(!afterKeys.some((k) => k.endsWith('.ndjson.zst')));
    for (const [i, q] of queries.entries()) assert.deepEqual(await sql(q), hot[i], q);
  });

  it('cuts an answer at LOGEXPORT_SQL_MAX_ROWS and says so', async () => {
    const response = await fetch(`${t.baseUrl}/zones/${zoneId}/logs/explorer/query/sql`, {
      method: 'POST',
      headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key, 'content-type': 'text/plain' },
      body: 'SELECT RayID FROM http_requests',
    });
    const body = (await response.json()) as { result: unknown[]; messages: { code: number }[]; result_info: unknown };
    assert.equal(response.status, 200);
    assert.equal(body.result.length, 250);
    assert.deepEqual(body.result_info, { count: 250, truncated: true });
    assert.equal(body.messages[0]?.code, 14100);
    const whole = await t.call('GET', `/zones/${zoneId}/logs/explorer/query/sql?query=${encodeURIComponent('SELECT RayID FROM http_requests LIMIT 10')}`, { auth: owner });
    assert.equal(whole.status, 200);
    assert.deepEqual(whole.body.result_info, { count: 10, truncated: false });
    assert.deepEqual(whole.body.messages, []);
  });

  it('keeps only the fields and events an updated dataset selects', async () => {
    const updated = await client.logs.logExplorer.datasets.update(datasetId, {
      zone_id: zoneId,
      enabled: true,
      fields: [
        { name: 'clientip', enabled: false },
        { name: 'requestheaders', enabled: false },
      ],
      filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } }),
    });
    assert.equal(updated.fields.find((f) => f.name === 'clientip')?.enabled, false);
    assert.equal(updated.fields.find((f) => f.name === 'rayid')?.enabled, true);
    assert.match(updated.filter ?? '', /EdgeResponseStatus/);
    const later = Array.from({ length: 40 }, (_, i) => explorerEvent(i, 'f'));
    await ingest(later);
    const kept = later.filter((e) => e.EdgeResponseStatus >= 500);
    await waitAdvancing(async () => (await count("RayID LIKE 'f%'")) === kept.length, 'the filtered events', clock);
    const rows = await sql("SELECT RayID, ClientIP, RequestHeaders, EdgeResponseStatus FROM http_requests WHERE RayID LIKE 'f%' ORDER BY RayID");
    assert.deepEqual(
      rows,
      kept.map((e) => ({ rayid: e.RayID, clientip: null, requestheaders: null, edgeresponsestatus: e.EdgeResponseStatus })),
    );
  });

  it('retains nothing new once the dataset is disabled, keeps what it stored, and deletes it', async () => {
    const disabled = await client.logs.logExplorer.datasets.update(datasetId, { zone_id: zoneId, enabled: false, deletion_protection: true });
    assert.equal(disabled.enabled, false);
    await ingest(Array.from({ length: 10 }, (_, i) => explorerEvent(i, 'g')));
    assert.equal(await count("RayID LIKE 'g%'"), 0);
    assert.equal(await count("RayID LIKE 'e%'"), events.length);
    await assert.rejects(client.logs.logExplorer.datasets.delete(datasetId, { zone_id: zoneId }), (e: unknown) => (e as { status?: number }).status === 400);
    await client.logs.logExplorer.datasets.update(datasetId, { zone_id: zoneId, enabled: false, deletion_protection: false });
    await client.logs.logExplorer.datasets.delete(datasetId, { zone_id: zoneId });
    await assert.rejects(client.logs.logExplorer.datasets.get(datasetId, { zone_id: zoneId }), (e: unknown) => (e as { status?: number }).status === 404);
    const entries = await client.user.auditLogs.list({ action: { type: 'explorer_dataset.update' } });
    assert.ok(entries.result.length >= 3);
  });

  it('answers account-scoped calls with a clear error', async () => {
    await assert.rejects(client.logs.logExplorer.datasets.list({ account_id: 'a'.repeat(32) }), (e: unknown) => {
      const error = e as { status?: number; errors?: { code: number }[] };
      return error.status === 400 && error.errors?.[0]?.code === 14403;
    });
    const answer = await t.call('POST', `/accounts/${'a'.repeat(32)}/logs/explorer/query/sql`, { raw: 'SELECT 1', auth: owner });
    assert.equal(answer.status, 400);
    assert.match(answer.body.errors[0].message, /zones, not accounts/);
  });
});
