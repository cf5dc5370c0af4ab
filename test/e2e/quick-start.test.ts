/**
 * The README's quick start, end to end on one node: custom fields configured → a job with a nested
 * filter to a `file://` destination → events posted → gzip files under the export root hold exactly the
 * expected records, with the captured headers and cookies, in field order, with the chosen timestamp
 * format and object names. Then the job is changed, moved and disabled through the API, and the same
 * events go to S3 (s3rver) and to an HTTP endpoint.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import S3rver from 's3rver';
import {
  challengeFor,
  createJob,
  event,
  freshDir,
  getJob,
  ingestEvents,
  postIngest,
  rayIds,
  readObjects,
  readRecords,
  resultOf,
  startPlane,
  startReceiver,
  updateJob,
  waitFor,
  waitForDelivered,
  waitForJob,
  type PlaneHarness,
} from './support/data-plane.ts';

const batchRecords = 1000;
const fieldNames = ['RayID', 'EdgeStartTimestamp', 'ClientRequestHost', 'EdgeResponseStatus', 'ClientCountry', 'RequestHeaders', 'ResponseHeaders', 'Cookies'];
const nestedFilter = JSON.stringify({
  where: {
    and: [
      { key: 'ClientRequestHost', operator: 'eq', value: 'www.example.com' },
      { or: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientCountry', operator: 'in', value: ['ca', 'us'] }] },
    ],
  },
});
/** `YYYYMMDD/<start>_<end>_<8 hex>.log.gz`, the name of DESIGN §8 under a `{DATE}` directory. */
const datedObjectName = /^(\d{8})\/(\d{8})T\d{6}Z_(\d{8})T\d{6}Z_[0-9a-f]{8}\.log\.gz$/;

/** Events 0..n-1 that the nested filter keeps, mixed with ones it leaves out; returns both lists of RayIDs. */
function mixedEvents(prefix: string, n: number): { events: Record<string, unknown>[]; kept: string[]; dropped: string[] } {
  const events: Record<string, unknown>[] = [];
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const [i, id] of rayIds(prefix, 0, n).entries()) {
    // Kept through one branch of the `or` or the other.
    const keptEvent = i % 2 === 0 ? event(id, { ClientCountry: 'ca' }) : event(id, { ClientCountry: 'de', EdgeResponseStatus: 503 });
    events.push(keptEvent);
    kept.push(id);
    if (i % 4 === 0) {
      const other = `${id}-x`;
      // Left out: the wrong host, or the right host with neither branch true.
      events.push(i % 8 === 0 ? event(other, { ClientRequestHost: 'api.example.com' }) : event(other, { ClientCountry: 'de', EdgeResponseStatus: 404 }));
      dropped.push(other);
    }
  }
  return { events, kept, dropped };
}

describe("the README's quick start, call for call", () => {
  it('ends with the gzip file the README shows', async () => {
    const h = await startPlane();
    try {
      // Steps 1-3: find no ruleset, create the entry point, put the rule.
      assert.deepEqual(resultOf(await h.t.call('GET', `/zones/${h.zone}/rulesets`)), []);
      const ruleset = resultOf(
        await h.t.call('POST', `/zones/${h.zone}/rulesets`, {
          body: { name: 'Zone-level phase entry point', kind: 'zone', description: '', phase: 'http_log_custom_fields' },
        }),
      );
      const updated = resultOf(
        await h.t.call('PUT', `/zones/${h.zone}/rulesets/${ruleset.id}`, {
          body: {
            rules: [
              {
                action: 'log_custom_field',
                expression: 'true',
                description: 'Custom fields for HTTP request logs',
                action_parameters: {
                  request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }],
                  response_fields: [{ name: 'server' }],
                  cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }],
                },
              },
            ],
          },
        }),
      );
      assert.equal(updated.version, '2');
      // Step 4: the ownership challenge and the job.
      const conf = 'file:///example.com/{DATE}';
      await createJob(h, {
        name: 'custom-fields',
        destination_conf: conf,
        max_upload_interval_seconds: 30,
        output_options: {
          field_names: ['RayID', 'EdgeStartTimestamp', 'ClientCountry', 'EdgeResponseStatus', 'RequestHeaders', 'ResponseHeaders', 'Cookies'],
          timestamp_format: 'rfc3339',
        },
        filter:
          '{"where":{"and":[{"key":"ClientCountry","operator":"!eq","value":"ca"},{"or":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientRequestHost","operator":"eq","value":"www.example.com"}]}]}}',
      });
      // Step 5: the two events, as the README sends them.
      const res = await postIngest(
        h,
        '{"RayID":"7c1a","EdgeStartTimestamp":1790000000000000000,"ClientCountry":"us","ClientRequestHost":"www.example.com","EdgeResponseStatus":200,"RawRequestHeaders":[["Content-Type","text/html"],["X-Forwarded-For","198.51.100.7"],["Cookie","__ga=GA1.1; accountNumber=42"]],"RawResponseHeaders":[["Server","nginx"]]}\n' +
          '{"RayID":"7c1b","EdgeStartTimestamp":1790000000100000000,"ClientCountry":"ca","ClientRequestHost":"www.example.com","EdgeResponseStatus":200}\n',
      );
      assert.equal(res.text, '{"success":true,"errors":[],"messages":[],"result":{"accepted":2}}');
      // Step 6 waits for the 30 s interval; stopping the node delivers the open batch at once instead.
      await h.t.app.stop();
      const objects = readObjects(h.t.config.exportRoot, 'example.com');
      assert.equal(objects.length, 1);
      assert.match(objects[0]?.key ?? '', /^example\.com\/\d{8}\/\d{8}T\d{6}Z_\d{8}T\d{6}Z_[0-9a-f]{8}\.log\.gz$/);
      assert.deepEqual(objects[0]?.lines, [
        '{"RayID":"7c1a","EdgeStartTimestamp":"2026-09-21T14:13:20Z","ClientCountry":"us","EdgeResponseStatus":200,' +
          '"RequestHeaders":{"content-type":"text/html","x-forwarded-for":"198.51.100.7"},"ResponseHeaders":{"server":"nginx"},' +
          '"Cookies":{"__ga":"GA1.1","accountNumber":"42"}}',
      ]);
    } finally {
      await h.stop();
    }
  });
});

describe('the quick start: custom fields, a filtered job, files under the export root', () => {
  let h: PlaneHarness;
  let jobId: number;
  const dir = freshDir('acme');

  before(async () => {
    h = await startPlane();
    // Step 1: the custom fields of the zone.
    resultOf(
      await h.t.call('PUT', `/zones/${h.zone}/rulesets/phases/http_log_custom_fields/entrypoint`, {
        body: {
          rules: [
            {
              action: 'log_custom_field',
              expression: 'true',
              action_parameters: {
                request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }, { name: 'x-big' }, { name: 'x-after-big' }],
                response_fields: [{ name: 'server' }, { name: 'set-cookie' }],
                cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }],
              },
            },
          ],
        },
      }),
    );
    // Step 2: a job with a nested filter to file:///<dir>/{DATE}.
    const job = await createJob(h, {
      name: 'quick-start',
      destination_conf: `file:///${dir}/{DATE}`,
      filter: nestedFilter,
      output_options: { field_names: fieldNames, timestamp_format: 'rfc3339' },
      max_upload_records: batchRecords,
    });
    assert.equal(job.enabled, true);
    jobId = job.id;
  });
  after(() => h.stop());

  it('delivers exactly the records the filter keeps, with the captured fields, in field order', async () => {
    const { events, kept, dropped } = mixedEvents('qs', batchRecords);
    // One event carries headers and cookies in every form capture has to deal with.
    events[0] = event(kept[0] ?? '', {
      ClientCountry: 'ca',
      RawRequestHeaders: [
        ['Host', 'www.example.com'],
        ['Content-Type', 'application/json'],
        ['CONTENT-TYPE', 'text/plain'],
        ['X-Forwarded-For', '198.51.100.7'],
        ['Cookie', 'accountnumber=lower; __ga=GA1.2.3; accountNumber=12345'],
        ['Cookie', '__ga=second'],
      ],
      RawResponseHeaders: [
        ['Server', 'nginx'],
        ['Set-Cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ],
    });
    // Another one goes over the 8 KB cap: x-big is cut to fit, and what comes after it is left out.
    events[2] = event(kept[1] ?? '', {
      ClientCountry: 'ca',
      RawRequestHeaders: [
        ['content-type', 'text/html'],
        ['x-big', 'é'.repeat(5000)],
        ['x-after-big', 'small'],
        ['Cookie', '__ga=never'],
      ],
      RawResponseHeaders: [['server', 'never']],
    });
    // Post in several requests, some gzip, as a proxy would.
    const third = Math.ceil(events.length / 3);
    await ingestEvents(h, events.slice(0, third));
    await ingestEvents(h, events.slice(third, 2 * third), true);
    await ingestEvents(h, events.slice(2 * third));

    const records = await waitFor('the batch file', () => {
      const found = readRecords(h.t.config.exportRoot, dir);
      return found.length >= batchRecords ? found : undefined;
    });
    assert.deepEqual(records.map((r) => r.RayID), kept, 'exactly the kept events, in order, once each');
    for (const record of records) assert.deepEqual(Object.keys(record), fieldNames, 'every record has the fields in field_names order');
    assert.ok(!records.some((r) => dropped.includes(String(r.RayID))));

    const [first, second, plain] = records;
    assert.deepEqual(first?.RequestHeaders, { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.7' }, 'first instance, names matched in any case');
    assert.deepEqual(first?.ResponseHeaders, { server: 'nginx', 'set-cookie': 'a=1' });
    assert.deepEqual(first?.Cookies, { __ga: 'GA1.2.3', accountNumber: '12345' }, 'cookie names match exactly, first occurrence wins');
    assert.equal(first?.EdgeStartTimestamp, '2026-05-02T10:00:00Z', 'timestamp_format rfc3339');

    const requestHeaders = second?.RequestHeaders as Record<string, string>;
    assert.deepEqual(Object.keys(requestHeaders), ['content-type', 'x-big']);
    const captured = Buffer.byteLength('content-type') + Buffer.byteLength('text/html') + Buffer.byteLength('x-big') + Buffer.byteLength(requestHeaders['x-big'] ?? '');
    assert.ok(captured <= 8192 && captured > 8190, `captured ${captured} bytes`);
    assert.match(requestHeaders['x-big'] ?? '', /^é+$/, 'cut between characters, never inside one');
    assert.equal(second?.ResponseHeaders, null, 'names after the cut are left out, and an empty map is absent');
    assert.equal(second?.Cookies, null);

    assert.deepEqual([plain?.RequestHeaders, plain?.ResponseHeaders, plain?.Cookies], [null, null, null], 'no raw headers, nothing captured');
    assert.equal(plain?.EdgeResponseStatus, 200);
  });

  it('names objects <YYYYMMDD>/<start>_<end>_<8 hex>.log.gz by queue append time, with nothing half-written left', async () => {
    const objects = readObjects(h.t.config.exportRoot, dir);
    assert.equal(objects.length, 1);
    const key = objects[0]?.key.slice(dir.length + 1) ?? '';
    const m = datedObjectName.exec(key);
    assert.ok(m, key);
    const [, folder, startDay] = m;
    assert.equal(folder, startDay, '{DATE} is the day of the first record');
    const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    assert.equal(folder, today, 'append time, not the events’ own timestamps');
    const all = fs.readdirSync(path.join(h.t.config.exportRoot, dir), { recursive: true }).map(String);
    assert.ok(!all.some((name) => name.endsWith('.tmp')), all.join(', '));
  });

  it('reports the job as delivered and counts what happened to every record', async () => {
    const job = await waitForJob(h, jobId, 'last_complete', (j) => j.last_complete !== null);
    assert.equal(job.last_error, null);
    assert.equal(job.error_message, null);
    for (const word of ['logexport', 'logpush']) {
      const stats = resultOf(await h.t.call('GET', `/zones/${h.zone}/${word}/jobs/${jobId}/stats`));
      assert.equal(stats.job_id, jobId);
      assert.equal(stats.counters.delivered_records, batchRecords);
      assert.equal(stats.counters.batches, 1);
      assert.equal(stats.counters.filtered_out, 250);
      assert.equal(stats.counters.failures, 0);
      assert.ok(stats.counters.delivered_bytes > 0);
      assert.equal(stats.series.reduce((n: number, p: { delivered_records: number }) => n + p.delivered_records, 0), batchRecords);
    }
    const metrics = await (await fetch(`${h.t.app.url}/metrics`)).text();
    assert.match(metrics, new RegExp(`^logexport_job_delivered_records_total\\{job_id="${jobId}"\\} ${batchRecords}$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_job_filtered_out_records_total\\{job_id="${jobId}"\\} 250$`, 'm'));
    assert.match(metrics, new RegExp(`^logexport_ingest_accepted_events_total\\{zone_id="${h.zone}"\\} 1250$`, 'm'));
  });

  it('applies a changed filter within about a second', async () => {
    await updateJob(h, jobId, { filter: JSON.stringify({ where: { key: 'ClientCountry', operator: 'eq', value: 'fr' } }) });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ids = rayIds('fr', 0, batchRecords);
    const events = ids.flatMap((id) => [event(id, { ClientCountry: 'fr' }), event(`${id}-ca`, { ClientCountry: 'ca' })]);
    const before = readRecords(h.t.config.exportRoot, dir).length;
    await ingestEvents(h, events);
    const records = await waitFor('the batch under the new filter', () => {
      const found = readRecords(h.t.config.exportRoot, dir).slice(before);
      return found.length >= batchRecords ? found : undefined;
    }, 5000);
    assert.deepEqual(records.map((r) => r.RayID), ids);
  });

  it('delivers to a new destination within about a second of moving the job, and nothing more to the old one', async () => {
    const moved = freshDir('moved');
    await updateJob(h, jobId, { destination_conf: `file:///${moved}`, ownership_challenge: await challengeFor(h, `file:///${moved}`) });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const oldCount = readObjects(h.t.config.exportRoot, dir).length;
    const ids = rayIds('moved', 0, batchRecords);
    await ingestEvents(h, ids.map((id) => event(id, { ClientCountry: 'fr' })));
    const records = await waitFor('the batch at the new destination', () => {
      const found = readRecords(h.t.config.exportRoot, moved);
      return found.length >= batchRecords ? found : undefined;
    }, 5000);
    assert.deepEqual(records.map((r) => r.RayID), ids);
    assert.match(readObjects(h.t.config.exportRoot, moved)[0]?.key ?? '', new RegExp(`^${moved}/\\d{8}T\\d{6}Z_\\d{8}T\\d{6}Z_[0-9a-f]{8}\\.log\\.gz$`));
    assert.equal(readObjects(h.t.config.exportRoot, dir).length, oldCount);
  });

  it('stops delivering once the job is disabled', async () => {
    const job = await getJob(h, jobId);
    const where = String(job.destination_conf).slice('file:///'.length);
    await updateJob(h, jobId, { enabled: false });
    const count = readObjects(h.t.config.exportRoot, where).length;
    await ingestEvents(h, rayIds('off', 0, batchRecords).map((id) => event(id, { ClientCountry: 'fr' })));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(readObjects(h.t.config.exportRoot, where).length, count);
    assert.deepEqual(h.t.app.supervisor.runningJobIds(), []);
  });
});

describe('delivery to S3 (s3rver) and to an HTTP endpoint', () => {
  const bucket = 'logexport-e2e';
  let s3dir = '';
  let s3: S3rver | undefined;
  let endpoint = '';
  let reader: S3Client | undefined;
  let h: PlaneHarness;

  before(async () => {
    s3dir = await fsPromises.mkdtemp(path.join(os.tmpdir(), 'logexport-e2e-s3-'));
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: bucket }] });
    endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    reader = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    h = await startPlane();
  });
  after(async () => {
    await h.stop();
    reader?.destroy();
    await s3?.close();
    await fsPromises.rm(s3dir, { recursive: true, force: true });
  });

  it('puts each batch into the bucket as one gzip object named as DESIGN §8 says', async () => {
    const prefix = freshDir('s3');
    await createJob(h, {
      destination_conf: `s3://${bucket}/${prefix}/{DATE}?region=us-east-1&endpoint=${endpoint}&access-key-id=S3RVER&secret-access-key=S3RVER`,
      output_options: { field_names: ['RayID', 'ClientIP'] },
      max_upload_records: batchRecords,
    });
    const ids = rayIds('s3', 0, batchRecords);
    await ingestEvents(h, ids.map((id) => event(id)), true);
    const s3reader = reader ?? assert.fail('no S3 reader');
    const keys = await waitFor('the S3 object', async () => {
      const listed = await s3reader.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
      const found = (listed.Contents ?? []).map((o) => o.Key ?? '').filter((k) => k.endsWith('.log.gz'));
      return found.length > 0 ? found : undefined;
    });
    assert.equal(keys.length, 1);
    assert.match(keys[0] ?? '', new RegExp(`^${prefix}/\\d{8}/\\d{8}T\\d{6}Z_\\d{8}T\\d{6}Z_[0-9a-f]{8}\\.log\\.gz$`));
    const object = await s3reader.send(new GetObjectCommand({ Bucket: bucket, Key: keys[0] }));
    assert.equal(object.ContentType, 'application/gzip');
    const text = gunzipSync(Buffer.from((await object.Body?.transformToByteArray()) ?? [])).toString('utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    assert.deepEqual(lines.map((l) => JSON.parse(l)), ids.map((id) => ({ RayID: id, ClientIP: '192.0.2.1' })));
  });

  it('POSTs each batch gzip-encoded with its name and the header_* parameters to an HTTP endpoint', async () => {
    const receiver = await startReceiver();
    try {
      await createJob(h, {
        destination_conf: `${receiver.url}?source=e2e&header_Authorization=Bearer%20s3cret&header_X-Team=edge`,
        output_options: { field_names: ['RayID', 'EdgeResponseStatus'] },
        max_upload_records: batchRecords,
      });
      const ids = rayIds('http', 0, batchRecords);
      await ingestEvents(h, ids.map((id) => event(id)));
      await waitForDelivered(receiver, batchRecords);
      const [validation, ...batches] = receiver.requests;
      assert.deepEqual(validation?.lines, ['{"content":"tests"}'], 'creating the job made a test upload');
      assert.equal(batches.length, 1);
      const request = batches[0] ?? assert.fail('no request');
      assert.equal(request.headers['content-encoding'], 'gzip');
      assert.equal(request.headers['content-type'], 'application/x-ndjson');
      assert.equal(request.headers.authorization, 'Bearer s3cret');
      assert.equal(request.headers['x-team'], 'edge');
      assert.match(String(request.headers['x-logexport-batch']), /^\d{8}T\d{6}Z_\d{8}T\d{6}Z_[0-9a-f]{8}\.log\.gz$/);
      assert.deepEqual(receiver.deliveredRayIds(), ids);
      assert.deepEqual(JSON.parse(request.lines[0] ?? ''), { RayID: ids[0], EdgeResponseStatus: 200 });
    } finally {
      await receiver.close();
    }
  });
});
