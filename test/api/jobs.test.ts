/**
 * The log export jobs API through HTTP, run once under each path word (`logexport` and `logpush`): jobs,
 * their echo-back, limits, filters, output options, destinations (file, S3 on s3rver, HTTP on loopback),
 * the ownership challenge, the validate endpoints and the dataset endpoints.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import S3rver from 's3rver';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { startTestApp, type ApiAnswer, type TestApp } from '../support/test-app.ts';

const words = ['logexport', 'logpush'] as const;
const bucket = 'logexport-jobs';
const fields = ['RayID', 'ClientIP', 'EdgeStartTimestamp'];

// ---------------------------------------------------------------------------------------------------------
// Servers the destinations talk to

/** One request an HTTP receiver got. */
interface Received {
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** An HTTP endpoint on loopback that records what it receives and answers with `status`. */
interface Receiver {
  readonly url: string;
  readonly requests: Received[];
  status: number;
  close(): Promise<void>;
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startReceiver(status = 200): Promise<Receiver> {
  const requests: Received[] = [];
  const state = { status };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(state.status, { 'content-type': 'text/plain' });
      response.end(state.status < 300 ? 'ok' : 'go away');
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let s3server: S3rver | undefined;
let s3dir = '';
let s3port = 0;
let s3reader: S3Client | undefined;
const savedEnv: Record<string, string | undefined> = {};
// The server's own AWS credentials, used for s3:// destinations that carry no keys.
const awsEnv = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_EC2_METADATA_DISABLED: 'true' };

before(async () => {
  s3dir = await fsPromises.mkdtemp(path.join(os.tmpdir(), 'logexport-jobs-s3-'));
  s3server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: bucket }] });
  s3port = (await s3server.run()).port;
  s3reader = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${s3port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  for (const [name, value] of Object.entries(awsEnv)) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
});

after(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  s3reader?.destroy();
  await s3server?.close();
  await fsPromises.rm(s3dir, { recursive: true, force: true });
});

const s3Endpoint = (): string => `http://127.0.0.1:${s3port}`;
const s3WithKeys = (dir: string, secret = 'S3RVER'): string =>
  `s3://${bucket}/${dir}?region=us-east-1&endpoint=${s3Endpoint()}&access-key-id=S3RVER&secret-access-key=${secret}`;
const s3WithoutKeys = (dir: string): string => `s3://${bucket}/${dir}?region=us-east-1&endpoint=${s3Endpoint()}`;

async function readS3Object(key: string): Promise<string> {
  const reader = s3reader ?? assert.fail('s3rver is not running');
  const object = await reader.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString('utf8')) ?? '';
}

async function listS3Keys(prefix: string): Promise<string[]> {
  const reader = s3reader ?? assert.fail('s3rver is not running');
  const listed = await reader.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key ?? '').sort();
}

// ---------------------------------------------------------------------------------------------------------
// Assertions

/** Asserts a failed answer: status, the v4 envelope, the code, and one error at `pointer` matching `pattern`. */
function assertFails(res: ApiAnswer, status: number, code: number, pointer?: string, pattern?: RegExp): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false, res.text);
  assert.equal(res.body.result, null);
  assert.deepEqual(res.body.messages, []);
  assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, res.text);
  for (const error of res.body.errors as { code: number; message: string }[]) {
    assert.equal(error.code, code, res.text);
    assert.ok(typeof error.message === 'string' && error.message.length > 0, res.text);
  }
  const matching = (res.body.errors as { message: string; source?: { pointer?: string } }[]).filter(
    (e) => (pointer === undefined || e.source?.pointer === pointer) && (pattern === undefined || pattern.test(e.message)),
  );
  assert.ok(matching.length > 0, `expected an error${pointer === undefined ? '' : ` at ${pointer}`}${pattern === undefined ? '' : ` matching ${pattern}`}: ${res.text}`);
}

function assertSucceeds(res: ApiAnswer): void {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.success, true);
  assert.deepEqual(res.body.errors, []);
  assert.deepEqual(res.body.messages, []);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
}

/** Every key a job answer has, no more. */
const jobKeys = [
  'dataset',
  'destination_conf',
  'enabled',
  'error_message',
  'filter',
  'frequency',
  'id',
  'kind',
  'last_complete',
  'last_error',
  'logpull_options',
  'max_upload_bytes',
  'max_upload_interval_seconds',
  'max_upload_records',
  'name',
  'output_options',
].sort();

/** A filter exactly `bytes` bytes long, one condition padded. */
function filterOfBytes(bytes: number): string {
  const empty = JSON.stringify({ where: { key: 'ClientRequestPath', operator: 'eq', value: '' } });
  const text = JSON.stringify({ where: { key: 'ClientRequestPath', operator: 'eq', value: 'a'.repeat(bytes - Buffer.byteLength(empty)) } });
  assert.equal(Buffer.byteLength(text), bytes);
  return text;
}

/** A filter of `count` conditions in one `and` group. */
function filterOfConditions(count: number): string {
  return JSON.stringify({ where: { and: Array.from({ length: count }, () => ({ key: 'RayID', operator: 'eq', value: '' })) } });
}

const nestedFilter = JSON.stringify({
  where: {
    and: [
      { key: 'ClientRequestHost', operator: 'eq', value: 'www.example.com' },
      { or: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientCountry', operator: 'in', value: ['ca', 'us'] }] },
    ],
  },
});

let dirCounter = 0;
const freshDir = (label: string): string => `${label}-${++dirCounter}`;

// ---------------------------------------------------------------------------------------------------------
// A node with helpers for one path word

interface Harness {
  readonly t: TestApp;
  readonly word: string;
  readonly owner: { email: string; key: string; userId: string };
  base(zone: string): string;
  zone(): Promise<string>;
  /** Asks for the challenge of `conf` and returns the token read from the file it wrote. */
  challenge(zone: string, conf: string): Promise<string>;
  /** A valid create body for a fresh file destination, with its challenge token. */
  fileJob(zone: string, extra?: Record<string, unknown>): Promise<Record<string, unknown>>;
  create(zone: string, body: unknown): Promise<ApiAnswer>;
  /** Creates a job that must succeed and returns its answer. */
  created(zone: string, extra?: Record<string, unknown>): Promise<Record<string, unknown> & { id: number }>;
  list(zone: string): Promise<Record<string, unknown>[]>;
}

async function harness(word: string, env: Record<string, string> = {}): Promise<Harness> {
  const t = await startTestApp({ LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true', ...env });
  const owner = await t.user();
  const h: Harness = {
    t,
    word,
    owner,
    base: (zone) => `/zones/${zone}/${word}`,
    zone: () => t.zone(owner),
    async challenge(zone, conf) {
      const res = await t.call('POST', `${h.base(zone)}/ownership`, { body: { destination_conf: conf } });
      assertSucceeds(res);
      return fs.readFileSync(path.join(t.config.exportRoot, res.body.result.filename), 'utf8');
    },
    async fileJob(zone, extra = {}) {
      const conf = `file:///${freshDir(word)}`;
      return { destination_conf: conf, ownership_challenge: await h.challenge(zone, conf), output_options: { field_names: fields }, ...extra };
    },
    create: (zone, body) => t.call('POST', `${h.base(zone)}/jobs`, { body }),
    async created(zone, extra = {}) {
      const res = await h.create(zone, await h.fileJob(zone, extra));
      assertSucceeds(res);
      return res.body.result;
    },
    async list(zone) {
      const res = await t.call('GET', `${h.base(zone)}/jobs`);
      assertSucceeds(res);
      return res.body.result;
    },
  };
  return h;
}

for (const word of words) {
  describe(`the jobs API under /zones/{zone_id}/${word}`, () => {
    let h: Harness;
    let t: TestApp;
    before(async () => {
      h = await harness(word);
      t = h.t;
    });
    after(async () => h.t.stop());

    describe('create, list, get, update and delete', () => {
      it('creates a job disabled, with an integer id, dataset http_requests, kind "" and nothing else set', async () => {
        const zone = await h.zone();
        const body = await h.fileJob(zone);
        const res = await h.create(zone, body);
        assertSucceeds(res);
        const job = res.body.result;
        assert.deepEqual(Object.keys(job).sort(), jobKeys);
        assert.ok(Number.isInteger(job.id) && job.id >= 1, `id ${String(job.id)}`);
        assert.equal(job.enabled, false);
        assert.equal(job.dataset, 'http_requests');
        assert.equal(job.kind, '');
        assert.equal(job.destination_conf, body.destination_conf);
        assert.deepEqual(job.output_options, { field_names: fields });
        for (const key of ['name', 'filter', 'logpull_options', 'frequency', 'max_upload_bytes', 'max_upload_records', 'max_upload_interval_seconds']) {
          assert.equal(job[key], null, key);
        }
        for (const key of ['last_complete', 'last_error', 'error_message']) assert.equal(job[key], null, key);
        assert.equal(job.ownership_challenge, undefined);
      });

      it('creates a job enabled when the body says enabled: true', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { enabled: true, name: 'enabled-job' });
        assert.equal(job.enabled, true);
        assert.equal(job.name, 'enabled-job');
      });

      it('gives each job its own id, lists the zone’s jobs in order and gets each one as created', async () => {
        const zone = await h.zone();
        const first = await h.created(zone, { name: 'first' });
        const second = await h.created(zone, { name: 'second' });
        assert.notEqual(first.id, second.id);
        const res = await t.call('GET', `${h.base(zone)}/jobs`);
        assertSucceeds(res);
        assert.deepEqual(res.body.result, [first, second]);
        assert.equal(res.body.result_info.count, 2);
        assert.equal(res.body.result_info.total_count, 2);
        for (const job of [first, second]) {
          const got = await t.call('GET', `${h.base(zone)}/jobs/${job.id}`);
          assertSucceeds(got);
          assert.deepEqual(got.body.result, job);
        }
        const byDataset = await t.call('GET', `${h.base(zone)}/datasets/http_requests/jobs`);
        assertSucceeds(byDataset);
        assert.deepEqual(byDataset.body.result, [first, second]);
        assert.deepEqual(await h.list(await h.zone()), []);
      });

      it('lists an empty zone as an empty array with result_info', async () => {
        const zone = await h.zone();
        const res = await t.call('GET', `${h.base(zone)}/jobs`);
        assertSucceeds(res);
        assert.deepEqual(res.body.result, []);
        assert.equal(res.body.result_info.total_count, 0);
      });

      it('enables a job with {"enabled": true} alone and leaves everything else as it was', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { name: 'partial', filter: nestedFilter, max_upload_records: 5000 });
        const res = await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { enabled: true } });
        assertSucceeds(res);
        assert.deepEqual(res.body.result, { ...job, enabled: true });
        const off = await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { enabled: false } });
        assert.deepEqual(off.body.result, job);
      });

      it('unsets a key sent as null on update', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { name: 'to-unset', filter: nestedFilter, max_upload_records: 5000, max_upload_bytes: 0 });
        const res = await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, {
          body: { name: null, filter: null, max_upload_records: null, max_upload_bytes: null },
        });
        assertSucceeds(res);
        assert.deepEqual(res.body.result, { ...job, name: null, filter: null, max_upload_records: null, max_upload_bytes: null });
      });

      it('changes output options, filter and name on update and echoes them as sent', async () => {
        const zone = await h.zone();
        const job = await h.created(zone);
        const output = { field_names: ['ClientCountry', 'RayID'], timestamp_format: 'rfc3339', output_type: 'csv' };
        const res = await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { output_options: output, filter: nestedFilter, name: 'renamed' } });
        assertSucceeds(res);
        assert.deepEqual(res.body.result.output_options, output);
        assert.equal(res.body.result.filter, nestedFilter);
        assert.equal(res.body.result.name, 'renamed');
      });

      it('accepts the whole job read back with GET as an update that changes nothing', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { name: 'round-trip', filter: nestedFilter, max_upload_interval_seconds: 60 });
        const read = await t.call('GET', `${h.base(zone)}/jobs/${job.id}`);
        const res = await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: read.body.result });
        assertSucceeds(res);
        assert.deepEqual(res.body.result, job);
      });

      it('deletes a job with 200 {id}, after which it is gone', async () => {
        const zone = await h.zone();
        const job = await h.created(zone);
        const res = await t.call('DELETE', `${h.base(zone)}/jobs/${job.id}`);
        assertSucceeds(res);
        assert.deepEqual(res.body.result, { id: job.id });
        assertFails(await t.call('GET', `${h.base(zone)}/jobs/${job.id}`), 404, 10404);
        assertFails(await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { enabled: true } }), 404, 10404);
        assertFails(await t.call('DELETE', `${h.base(zone)}/jobs/${job.id}`), 404, 10404);
        assert.deepEqual(await h.list(zone), []);
      });

      it('refuses a change of dataset or kind with 400, and accepts them sent unchanged', async () => {
        const zone = await h.zone();
        const job = await h.created(zone);
        const url = `${h.base(zone)}/jobs/${job.id}`;
        assertFails(await t.call('PUT', url, { body: { dataset: 'firewall_events' } }), 400, 1004, '/dataset');
        assertFails(await t.call('PUT', url, { body: { kind: 'edge' } }), 400, 1004, '/kind');
        assertFails(await t.call('PUT', url, { body: { kind: 'instant-logs' } }), 400, 1004, '/kind');
        assertSucceeds(await t.call('PUT', url, { body: { dataset: 'http_requests', kind: '' } }));
        assertSucceeds(await t.call('PUT', url, { body: { dataset: null, kind: null } }));
        const got = await t.call('GET', url);
        assert.deepEqual(got.body.result, job);
      });

      it('runs step 4 of the custom-fields workflow: challenge, then a job exporting the custom fields with a nested filter', async () => {
        const zone = await h.zone();
        const conf = `file:///${freshDir('custom-fields')}/{DATE}`;
        const challenge = await t.call('POST', `${h.base(zone)}/ownership`, { body: { destination_conf: conf } });
        assertSucceeds(challenge);
        const token = fs.readFileSync(path.join(t.config.exportRoot, challenge.body.result.filename), 'utf8');
        const output = {
          field_names: ['RayID', 'EdgeStartTimestamp', 'ClientIP', 'RequestHeaders', 'ResponseHeaders', 'Cookies'],
          timestamp_format: 'rfc3339',
          sample_rate: 0.1,
          'CVE-2021-44228': 'true',
        };
        const res = await h.create(zone, { name: 'custom-fields', destination_conf: conf, dataset: 'http_requests', output_options: output, ownership_challenge: token, filter: nestedFilter });
        assertSucceeds(res);
        assert.deepEqual(res.body.result.output_options, output);
        assert.equal(res.body.result.filter, nestedFilter);
        assert.equal(res.body.result.destination_conf, conf);
        assert.equal(res.body.result.enabled, false);
      });

      it('refuses a job of another dataset or kind on create', async () => {
        const zone = await h.zone();
        assertFails(await h.create(zone, await h.fileJob(zone, { dataset: 'dns_logs' })), 400, 1004, '/dataset', /dns_logs/);
        assertFails(await h.create(zone, await h.fileJob(zone, { kind: 'edge' })), 400, 1004, '/kind');
        assert.deepEqual(await h.list(zone), []);
      });
    });

    describe('echo-back', () => {
      it('returns filter as the exact string sent, whitespace and key order included', async () => {
        const zone = await h.zone();
        const filter = '{ "where" : {"or":[ {"value":"ca","operator":"eq","key":"ClientCountry"},\n {"key":"BotScore","operator":"lt","value":"30"}]} }';
        const job = await h.created(zone, { filter });
        assert.equal(job.filter, filter);
        const got = await t.call('GET', `${h.base(zone)}/jobs/${job.id}`);
        assert.equal(got.body.result.filter, filter);
      });

      it('returns an empty filter as the empty string', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { filter: '' });
        assert.equal(job.filter, '');
      });

      it('returns output_options as sent, with no defaults added', async () => {
        const zone = await h.zone();
        const sent = { field_names: ['RayID', 'EdgeStartTimestamp'], timestamp_format: 'rfc3339', 'CVE-2021-44228': true };
        const job = await h.created(zone, { output_options: sent });
        assert.deepEqual(job.output_options, sent);
        assert.deepEqual(Object.keys(job.output_options as object), Object.keys(sent));
        for (const key of ['output_type', 'sample_rate', 'record_prefix', 'field_delimiter']) assert.equal((job.output_options as Record<string, unknown>)[key], undefined);
      });

      it('returns the nulls of output options a declarative tool sends', async () => {
        const zone = await h.zone();
        const sent = { field_names: ['RayID'], output_type: null, sample_rate: null, record_template: null, 'CVE-2021-44228': false, batch_prefix: null };
        const job = await h.created(zone, { output_options: sent });
        assert.deepEqual(job.output_options, sent);
      });

      it('takes the body a declarative tool sends, zero values and all, and returns each value as sent', async () => {
        const zone = await h.zone();
        const conf = `file:///${freshDir('declarative')}`;
        const body = {
          dataset: 'http_requests',
          destination_conf: conf,
          ownership_challenge: await h.challenge(zone, conf),
          enabled: false,
          frequency: 'high',
          kind: '',
          filter: '',
          name: '',
          logpull_options: '',
          max_upload_bytes: 0,
          max_upload_records: 0,
          max_upload_interval_seconds: 0,
          filter_attack_traffic: null,
          output_options: { field_names: fields, 'CVE-2021-44228': false, output_type: null, timestamp_format: 'rfc3339', sample_rate: null },
        };
        const res = await h.create(zone, body);
        assertSucceeds(res);
        const { ownership_challenge: _challenge, filter_attack_traffic: _attack, ...echoed } = body;
        for (const [key, value] of Object.entries(echoed)) assert.deepEqual(res.body.result[key], value, key);
      });

      it('returns max_upload_* as sent, 0 included, or null when not sent', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { max_upload_bytes: 0, max_upload_records: 1000 });
        assert.equal(job.max_upload_bytes, 0);
        assert.equal(job.max_upload_records, 1000);
        assert.equal(job.max_upload_interval_seconds, null);
      });
    });

    describe('field rules', () => {
      const ranges = {
        max_upload_bytes: { min: 5_000_000, max: 1_000_000_000 },
        max_upload_records: { min: 1_000, max: 1_000_000 },
        max_upload_interval_seconds: { min: 30, max: 300 },
      } as const;
      for (const [key, { min, max }] of Object.entries(ranges)) {
        it(`accepts ${key} of 0, ${min} and ${max}`, async () => {
          const zone = await h.zone();
          for (const value of [0, min, max]) {
            const job = await h.created(zone, { [key]: value });
            assert.equal(job[key], value);
            await t.call('DELETE', `${h.base(zone)}/jobs/${job.id}`);
          }
        });

        it(`refuses ${key} below ${min}, above ${max}, fractional, negative or as a string`, async () => {
          const zone = await h.zone();
          for (const value of [min - 1, max + 1, min + 0.5, -1, String(min), true]) {
            const res = await h.create(zone, await h.fileJob(zone, { [key]: value }));
            assertFails(res, 400, 1004, `/${key}`, new RegExp(`${key}.*${min}.*${max}`));
          }
          assert.deepEqual(await h.list(zone), []);
        });
      }

      it('accepts names of letters, digits, "-" and "." up to 512 characters', async () => {
        const zone = await h.zone();
        for (const name of ['my-job.v1', 'A'.repeat(512), '']) {
          const job = await h.created(zone, { name });
          assert.equal(job.name, name);
          await t.call('DELETE', `${h.base(zone)}/jobs/${job.id}`);
        }
      });

      it('refuses names with "_", spaces or other characters, longer than 512, or not strings', async () => {
        const zone = await h.zone();
        for (const name of ['my_job', 'my job', 'job/1', 'é', 'a'.repeat(513), 5]) {
          assertFails(await h.create(zone, await h.fileJob(zone, { name })), 400, 1004, '/name');
        }
      });

      it('refuses unknown keys by name and takes read-only keys sent back', async () => {
        const zone = await h.zone();
        const res = await h.create(zone, await h.fileJob(zone, { bogus: 1, Enabled: true }));
        assertFails(res, 400, 1004, '/bogus', /"bogus"/);
        assertFails(res, 400, 1004, '/Enabled', /"Enabled"/);
        const job = await h.created(zone, { id: 99999, last_complete: null, last_error: null, error_message: null });
        assert.notEqual(job.id, 99999);
      });

      it('refuses enabled that is not a boolean and frequency other than high or low', async () => {
        const zone = await h.zone();
        assertFails(await h.create(zone, await h.fileJob(zone, { enabled: 'true' })), 400, 1004, '/enabled');
        assertFails(await h.create(zone, await h.fileJob(zone, { frequency: 'often' })), 400, 1004, '/frequency');
        const job = await h.created(zone, { frequency: 'low' });
        assert.equal(job.frequency, 'low');
      });

      it('refuses a create without destination_conf', async () => {
        const zone = await h.zone();
        assertFails(await h.create(zone, { output_options: { field_names: fields } }), 400, 1004, '/destination_conf', /required/);
      });
    });

    describe('the job limit', () => {
      it('refuses a fifth job of a zone with 403 / 1004 "exceeded max jobs allowed" and stores nothing', async () => {
        const zone = await h.zone();
        for (let i = 0; i < 4; i++) await h.created(zone);
        const before = await h.list(zone);
        const res = await h.create(zone, await h.fileJob(zone));
        assertFails(res, 403, 1004, undefined, /^creating a new job \(for http_requests dataset\) is not allowed: exceeded max jobs allowed/);
        assert.deepEqual(await h.list(zone), before);
        // another zone has its own allowance, and deleting a job frees a place
        await h.created(await h.zone());
        const first = before[0] as { id: number };
        assertSucceeds(await t.call('DELETE', `${h.base(zone)}/jobs/${first.id}`));
        await h.created(zone);
      });
    });

    describe('filters', () => {
      it('accepts a valid nested filter', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { filter: nestedFilter });
        assert.equal(job.filter, nestedFilter);
      });

      const bad: readonly { name: string; filter: unknown; inner: string; mentions: RegExp }[] = [
        { name: 'text that is not JSON', filter: '{"where":', inner: 'filter', mentions: /not valid JSON/ },
        { name: 'a filter without where', filter: '{"when":{}}', inner: 'filter', mentions: /"where"/ },
        { name: 'an extra top-level key', filter: JSON.stringify({ where: { key: 'ClientCountry', operator: 'eq', value: 'ca' }, limit: 1 }), inner: '/limit', mentions: /unexpected key "limit"/ },
        { name: 'an unknown field', filter: JSON.stringify({ where: { and: [{ key: 'ClientCountry', operator: 'eq', value: 'ca' }, { key: 'Country', operator: 'eq', value: 'ca' }] } }), inner: '/where/and/1/key', mentions: /unknown field "Country"/ },
        { name: 'an operator on the wrong type of field', filter: JSON.stringify({ where: { and: [{ key: 'ClientRequestHost', operator: 'eq', value: 'a' }, { key: 'ClientCountry', operator: 'lt', value: 'x' }] } }), inner: '/where/and/1', mentions: /operator "lt".*ClientCountry is a string/ },
        { name: 'an unknown operator', filter: JSON.stringify({ where: { key: 'ClientCountry', operator: 'like', value: 'ca' } }), inner: '/where/operator', mentions: /unknown operator "like"/ },
        { name: 'a value of the wrong type', filter: JSON.stringify({ where: { or: [{ key: 'EdgeResponseStatus', operator: 'eq', value: 'ok' }] } }), inner: '/where/or/0/value', mentions: /EdgeResponseStatus is an int field/ },
        { name: 'a string for in', filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'in', value: '200,201' } }), inner: '/where/value', mentions: /JSON array/ },
        { name: 'an object field', filter: JSON.stringify({ where: { key: 'Cookies', operator: 'eq', value: 'x' } }), inner: '/where/key', mentions: /cannot be filtered/ },
        { name: 'an empty group', filter: JSON.stringify({ where: { and: [] } }), inner: '/where/and', mentions: /at least one/ },
        { name: 'a condition without value', filter: JSON.stringify({ where: { key: 'ClientCountry', operator: 'eq' } }), inner: '/where', mentions: /missing "value"/ },
      ];
      for (const c of bad) {
        it(`refuses ${c.name} with 400 / 1004 at /filter, naming ${c.inner} inside it`, async () => {
          const zone = await h.zone();
          const res = await h.create(zone, await h.fileJob(zone, { filter: c.filter }));
          assertFails(res, 400, 1004, '/filter', c.mentions);
          const message = (res.body.errors as { message: string }[]).find((e) => c.mentions.test(e.message))?.message ?? '';
          assert.ok(message.startsWith(`filter${c.inner === 'filter' ? '' : ` ${c.inner}`}: `), message);
          assert.deepEqual(await h.list(zone), []);
        });
      }

      it('refuses a filter that is not a string', async () => {
        const zone = await h.zone();
        assertFails(await h.create(zone, await h.fileJob(zone, { filter: { where: { key: 'ClientCountry', operator: 'eq', value: 'ca' } } })), 400, 1004, '/filter', /string/);
      });

      it('refuses a bad filter on update and keeps the stored one', async () => {
        const zone = await h.zone();
        const job = await h.created(zone, { filter: nestedFilter });
        assertFails(await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { filter: '{"where":{"and":[]}}' } }), 400, 1004, '/filter');
        assert.equal((await t.call('GET', `${h.base(zone)}/jobs/${job.id}`)).body.result.filter, nestedFilter);
      });

      it('accepts a filter of 1000 bytes and refuses one of 1001', async () => {
        const zone = await h.zone();
        await h.created(zone, { filter: filterOfBytes(1000) });
        assertFails(await h.create(zone, await h.fileJob(zone, { filter: filterOfBytes(1001) })), 400, 1004, '/filter', /1001 bytes.*at most 1000/);
      });
    });

    describe('output options', () => {
      it('refuses an unknown output option by name', async () => {
        const zone = await h.zone();
        const res = await h.create(zone, await h.fileJob(zone, { output_options: { field_names: fields, record_sufix: '\n' } }));
        assertFails(res, 400, 1004, '/output_options/record_sufix', /"record_sufix"/);
      });

      it('refuses an unknown field name by name, pointing at it', async () => {
        const zone = await h.zone();
        const res = await h.create(zone, await h.fileJob(zone, { output_options: { field_names: ['RayID', 'ClientIp'] } }));
        assertFails(res, 400, 1004, '/output_options/field_names/1', /"ClientIp"/);
      });

      it('refuses a timestamp format it does not know', async () => {
        const zone = await h.zone();
        const res = await h.create(zone, await h.fileJob(zone, { output_options: { field_names: fields, timestamp_format: 'iso8601' } }));
        assertFails(res, 400, 1004, '/output_options/timestamp_format', /unixnano/);
      });

      it('accepts every documented timestamp format', async () => {
        const zone = await h.zone();
        for (const format of ['unixnano', 'unix', 'rfc3339', 'rfc3339ms', 'rfc3339ns']) {
          const job = await h.created(zone, { output_options: { field_names: fields, timestamp_format: format } });
          await t.call('DELETE', `${h.base(zone)}/jobs/${job.id}`);
        }
      });

      it('refuses a sample_rate outside (0, 1] and accepts one inside', async () => {
        const zone = await h.zone();
        for (const rate of [0, -0.5, 1.01, 2, '0.5']) {
          const res = await h.create(zone, await h.fileJob(zone, { output_options: { field_names: fields, sample_rate: rate } }));
          assertFails(res, 400, 1004, '/output_options/sample_rate');
        }
        for (const rate of [1, 0.001]) {
          const job = await h.created(zone, { output_options: { field_names: fields, sample_rate: rate } });
          assert.equal((job.output_options as { sample_rate: number }).sample_rate, rate);
          await t.call('DELETE', `${h.base(zone)}/jobs/${job.id}`);
        }
      });

      it('accepts both spellings of the CVE-2021-44228 option and echoes the one sent', async () => {
        const zone = await h.zone();
        for (const key of ['CVE-2021-44228', 'CVE-2021-4428']) {
          const job = await h.created(zone, { output_options: { field_names: fields, [key]: true } });
          assert.deepEqual(job.output_options, { field_names: fields, [key]: true });
        }
        const res = await h.create(zone, await h.fileJob(zone, { output_options: { field_names: fields, 'CVE-2021-44228': 'yes' } }));
        assertFails(res, 400, 1004, '/output_options/CVE-2021-44228');
      });

      it('refuses output_options that are not an object, and a bad record_template', async () => {
        const zone = await h.zone();
        assertFails(await h.create(zone, await h.fileJob(zone, { output_options: ['RayID'] })), 400, 1004, '/output_options');
        assertFails(await h.create(zone, await h.fileJob(zone, { output_options: 'fields=RayID' })), 400, 1004, '/output_options');
        assertFails(await h.create(zone, await h.fileJob(zone, { output_options: { field_names: fields, record_template: '{{ .RayID ' } })), 400, 1004, '/output_options/record_template');
      });

      it('runs a job configured by logpull_options alone and echoes them', async () => {
        const zone = await h.zone();
        const logpull = 'fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339&CVE-2021-44228=true';
        const body = await h.fileJob(zone, { logpull_options: logpull });
        delete body.output_options;
        const res = await h.create(zone, body);
        assertSucceeds(res);
        assert.equal(res.body.result.logpull_options, logpull);
        assert.equal(res.body.result.output_options, null);
      });

      it('refuses bad logpull_options with a pointer at them', async () => {
        const zone = await h.zone();
        const body = await h.fileJob(zone, { logpull_options: 'fields=RayID,Nope' });
        delete body.output_options;
        assertFails(await h.create(zone, body), 400, 1004, '/logpull_options', /"Nope"/);
      });

      it('refuses a job that names no fields', async () => {
        const zone = await h.zone();
        const body = await h.fileJob(zone);
        delete body.output_options;
        assertFails(await h.create(zone, body), 400, 1004, '/output_options', /names no fields/);
        assertFails(await h.create(zone, await h.fileJob(zone, { output_options: {} })), 400, 1004, '/output_options/field_names');
        assertFails(await h.create(zone, await h.fileJob(zone, { output_options: { field_names: [] } })), 400, 1004, '/output_options/field_names');
        assertFails(await h.create(zone, await h.fileJob(zone, { output_options: null, logpull_options: 'timestamps=rfc3339' })), 400, 1004, '/output_options', /names no fields/);
        assert.deepEqual(await h.list(zone), []);
      });

      it('takes the custom-field object fields in field_names', async () => {
        const zone = await h.zone();
        const output = { field_names: ['RayID', 'RequestHeaders', 'ResponseHeaders', 'Cookies'] };
        const job = await h.created(zone, { output_options: output });
        assert.deepEqual(job.output_options, output);
      });
    });

    describe('destination_conf', () => {
      const malformed: readonly { name: string; conf: unknown; mentions: RegExp }[] = [
        { name: 'an unsupported scheme', conf: 'gs://bucket/logs', mentions: /scheme 'gs' is not supported/ },
        { name: 'a string that is not a URL', conf: 'just some words', mentions: /space|URL/ },
        { name: 'a file destination with a host', conf: 'file://server/logs', mentions: /no host/ },
        { name: 'a file destination with ".."', conf: 'file:///logs/../etc', mentions: /'\.\.'/ },
        { name: 'a file destination with an encoded ".."', conf: 'file:///logs/%2e%2e/etc', mentions: /'\.\.'/ },
        { name: 'a file destination with a query', conf: 'file:///logs?x=1', mentions: /query/ },
        { name: 'an s3 bucket name with capitals', conf: 's3://Bad_Bucket/logs?region=us-east-1', mentions: /bucket name/ },
        { name: 'an s3 destination without region', conf: 's3://good-bucket/logs', mentions: /region/ },
        { name: 'an s3 destination with one half of a key pair', conf: 's3://good-bucket/logs?region=us-east-1&access-key-id=AK', mentions: /together/ },
        { name: 'an s3 destination with an unknown parameter', conf: 's3://good-bucket/logs?region=us-east-1&acl=public', mentions: /'acl'/ },
        { name: 'an r2 destination without keys', conf: 'r2://logs?account-id=0123456789abcdef0123456789abcdef', mentions: /required/ },
        { name: 'credentials in an http URL', conf: 'https://user:pw@logs.example.com/in', mentions: /header_Authorization/ },
        { name: 'a framing header', conf: 'https://logs.example.com/in?header_Host=evil', mentions: /Host/ },
        { name: 'an empty string', conf: '', mentions: /destination/ },
        { name: 'a number', conf: 42, mentions: /destination/ },
      ];
      for (const c of malformed) {
        it(`refuses ${c.name} at /destination_conf on create, ownership and validate`, async () => {
          const zone = await h.zone();
          assertFails(await h.create(zone, { destination_conf: c.conf, output_options: { field_names: fields } }), 400, 1004, '/destination_conf', c.mentions);
          for (const route of ['ownership', 'validate/destination', 'validate/destination/exists']) {
            const res = await t.call('POST', `${h.base(zone)}/${route}`, { body: { destination_conf: c.conf } });
            assertFails(res, 400, 1004, '/destination_conf');
          }
          assert.deepEqual(await h.list(zone), []);
        });
      }

      it('refuses a destination_conf that changes to a malformed one on update', async () => {
        const zone = await h.zone();
        const job = await h.created(zone);
        assertFails(await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { destination_conf: 'file:///../escape' } }), 400, 1004, '/destination_conf');
      });

      it('masks the secrets of an S3 destination in every answer and keeps the real ones stored', async () => {
        const zone = await h.zone();
        const secret = 'S3RVER';
        const conf = s3WithKeys(freshDir('masked'), secret);
        const created = await h.create(zone, { destination_conf: conf, output_options: { field_names: fields } });
        assertSucceeds(created);
        const masked = conf.replace(`secret-access-key=${secret}`, 'secret-access-key=REDACTED');
        const job = created.body.result;
        assert.equal(job.destination_conf, masked);
        const answers = [
          created,
          await t.call('GET', `${h.base(zone)}/jobs/${job.id}`),
          await t.call('GET', `${h.base(zone)}/jobs`),
          await t.call('GET', `${h.base(zone)}/datasets/http_requests/jobs`),
          await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { enabled: true } }),
          // a masked destination_conf sent back is not a change
          await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { body: { destination_conf: masked, name: 'renamed' } }),
        ];
        for (const res of answers) {
          assertSucceeds(res);
          assert.ok(!res.text.includes(`secret-access-key=${secret}`), res.text);
          assert.ok(res.text.includes('secret-access-key=REDACTED'), res.text);
        }
        const stored = await t.app.store.getJob(zone, job.id);
        assert.equal(stored?.destinationConf, conf);
      });

      it('masks header values of an HTTP destination in every answer', async () => {
        const receiver = await startReceiver();
        try {
          const zone = await h.zone();
          const conf = `${receiver.url}/ingest?source=logexport&header_Authorization=Bearer%20s3cr3t-value&header_X-Api-Key=k3y-value`;
          const created = await h.create(zone, { destination_conf: conf, output_options: { field_names: fields } });
          assertSucceeds(created);
          const id = created.body.result.id as number;
          const answers = [
            created,
            await t.call('GET', `${h.base(zone)}/jobs/${id}`),
            await t.call('GET', `${h.base(zone)}/jobs`),
            await t.call('GET', `${h.base(zone)}/datasets/http_requests/jobs`),
            await t.call('PUT', `${h.base(zone)}/jobs/${id}`, { body: { name: 'http' } }),
          ];
          for (const res of answers) {
            assertSucceeds(res);
            assert.ok(!res.text.includes('s3cr3t-value') && !res.text.includes('k3y-value'), res.text);
          }
          assert.equal(created.body.result.destination_conf, `${receiver.url}/ingest?source=logexport&header_Authorization=REDACTED&header_X-Api-Key=REDACTED`);
        } finally {
          await receiver.close();
        }
      });

      it('refuses a destination_conf holding the masked placeholder in place of a new secret', async () => {
        const zone = await h.zone();
        const conf = s3WithKeys(freshDir('placeholder'), 'REDACTED');
        assertFails(await h.create(zone, { destination_conf: conf, output_options: { field_names: fields } }), 400, 1004, '/destination_conf', /REDACTED/);
      });
    });

    describe('the ownership challenge', () => {
      it('writes the challenge file under the export root and answers {filename, valid: true, message: ""}', async () => {
        const zone = await h.zone();
        const dir = freshDir('challenge');
        const res = await t.call('POST', `${h.base(zone)}/ownership`, { body: { destination_conf: `file:///${dir}` } });
        assertSucceeds(res);
        assert.deepEqual(Object.keys(res.body.result).sort(), ['filename', 'message', 'valid']);
        assert.equal(res.body.result.valid, true);
        assert.equal(res.body.result.message, '');
        assert.match(res.body.result.filename, new RegExp(`^${dir}/ownership-challenge-[0-9a-f]{8}\\.txt$`));
        const token = fs.readFileSync(path.join(t.config.exportRoot, res.body.result.filename), 'utf8');
        assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        const check = await t.call('POST', `${h.base(zone)}/ownership/validate`, { body: { destination_conf: `file:///${dir}`, ownership_challenge: token } });
        assertSucceeds(check);
        assert.deepEqual(check.body.result, { valid: true });
      });

      it('writes the challenge of a dated path into the part before {DATE}', async () => {
        const zone = await h.zone();
        const dir = freshDir('dated');
        const res = await t.call('POST', `${h.base(zone)}/ownership`, { body: { destination_conf: `file:///${dir}/{DATE}` } });
        assertSucceeds(res);
        assert.match(res.body.result.filename, new RegExp(`^${dir}/ownership-challenge-[0-9a-f]{8}\\.txt$`));
      });

      it('validates a token only for its own zone and destination, and not once tampered with', async () => {
        const zone = await h.zone();
        const otherZone = await h.zone();
        const conf = `file:///${freshDir('bound')}`;
        const otherConf = `file:///${freshDir('bound')}`;
        const token = await h.challenge(zone, conf);
        const otherZoneToken = await h.challenge(otherZone, conf);
        const otherConfToken = await h.challenge(zone, otherConf);
        const [header, payload, signature] = token.split('.') as [string, string, string];
        const flipped = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
        const cases: [string, unknown, boolean][] = [
          ['its own token', token, true],
          ['another zone’s token', otherZoneToken, false],
          ['another destination’s token', otherConfToken, false],
          ['a tampered token', flipped, false],
          ['a made-up token', 'abc.def.ghi', false],
          ['no token', undefined, false],
        ];
        for (const [label, challenge, valid] of cases) {
          const res = await t.call('POST', `${h.base(zone)}/ownership/validate`, { body: { destination_conf: conf, ...(challenge === undefined ? {} : { ownership_challenge: challenge }) } });
          assertSucceeds(res);
          assert.deepEqual(res.body.result, { valid }, label);
        }
      });

      it('requires a valid token to create a job with a file destination', async () => {
        const zone = await h.zone();
        const otherZone = await h.zone();
        const conf = `file:///${freshDir('owned')}`;
        const body = { destination_conf: conf, output_options: { field_names: fields } };
        assertFails(await h.create(zone, body), 400, 1004, '/ownership_challenge', /required/);
        assertFails(await h.create(zone, { ...body, ownership_challenge: await h.challenge(zone, `file:///${freshDir('owned')}`) }), 400, 1004, '/ownership_challenge', /another destination_conf/);
        assertFails(await h.create(zone, { ...body, ownership_challenge: await h.challenge(otherZone, conf) }), 400, 1004, '/ownership_challenge', /another zone/);
        assertFails(await h.create(zone, { ...body, ownership_challenge: 'not a token!' }), 400, 1004, '/ownership_challenge');
        assert.deepEqual(await h.list(zone), []);
        assertSucceeds(await h.create(zone, { ...body, ownership_challenge: await h.challenge(zone, conf) }));
      });

      it('requires a new valid token when an update changes destination_conf, and none otherwise', async () => {
        const zone = await h.zone();
        const job = await h.created(zone);
        const url = `${h.base(zone)}/jobs/${job.id}`;
        const oldConf = job.destination_conf as string;
        const newConf = `file:///${freshDir('moved')}`;
        assertFails(await t.call('PUT', url, { body: { destination_conf: newConf } }), 400, 1004, '/ownership_challenge', /required/);
        assertFails(await t.call('PUT', url, { body: { destination_conf: newConf, ownership_challenge: await h.challenge(zone, oldConf) } }), 400, 1004, '/ownership_challenge');
        assert.equal((await t.call('GET', url)).body.result.destination_conf, oldConf);
        assertSucceeds(await t.call('PUT', url, { body: { destination_conf: oldConf, name: 'same-destination' } }));
        const moved = await t.call('PUT', url, { body: { destination_conf: newConf, ownership_challenge: await h.challenge(zone, newConf) } });
        assertSucceeds(moved);
        assert.equal(moved.body.result.destination_conf, newConf);
      });

      it('answers HTTP destinations that they need no challenge', async () => {
        const zone = await h.zone();
        assertFails(await t.call('POST', `${h.base(zone)}/ownership`, { body: { destination_conf: 'https://logs.example.com/in' } }), 400, 1004, '/destination_conf', /no ownership challenge/);
      });

      it('refuses an ownership body with unknown keys or that is not an object', async () => {
        const zone = await h.zone();
        assertFails(await t.call('POST', `${h.base(zone)}/ownership`, { body: { destination_conf: 'file:///x', extra: 1 } }), 400, 10400, '/extra');
        assertFails(await t.call('POST', `${h.base(zone)}/ownership`, { body: ['file:///x'] }), 400, 10400);
      });
    });

    describe('S3 destinations on a real S3-protocol server', () => {
      it('creates a job for a bucket with keys without a challenge, proving it can write there', async () => {
        const zone = await h.zone();
        const dir = freshDir('s3keys');
        const res = await h.create(zone, { destination_conf: s3WithKeys(dir), output_options: { field_names: fields } });
        assertSucceeds(res);
        assert.deepEqual(await listS3Keys(`${dir}/`), [], 'the validation probe is removed');
      });

      it('refuses a bucket with keys the server cannot write to', async () => {
        const zone = await h.zone();
        const conf = `s3://no-such-bucket/logs?region=us-east-1&endpoint=${s3Endpoint()}&access-key-id=S3RVER&secret-access-key=S3RVER`;
        assertFails(await h.create(zone, { destination_conf: conf, output_options: { field_names: fields } }), 400, 1004, '/destination_conf', /NoSuchBucket/);
        assert.deepEqual(await h.list(zone), []);
      });

      it('requires a challenge for a bucket without keys, writing the challenge object into the bucket', async () => {
        const zone = await h.zone();
        const dir = freshDir('s3owned');
        const conf = s3WithoutKeys(dir);
        const body = { destination_conf: conf, output_options: { field_names: fields } };
        assertFails(await h.create(zone, body), 400, 1004, '/ownership_challenge', /required/);
        const res = await t.call('POST', `${h.base(zone)}/ownership`, { body: { destination_conf: conf } });
        assertSucceeds(res);
        assert.equal(res.body.result.valid, true);
        assert.match(res.body.result.filename, new RegExp(`^${dir}/ownership-challenge-[0-9a-f]{8}\\.txt$`));
        const token = await readS3Object(res.body.result.filename);
        const check = await t.call('POST', `${h.base(zone)}/ownership/validate`, { body: { destination_conf: conf, ownership_challenge: token } });
        assert.deepEqual(check.body.result, { valid: true });
        const created = await h.create(zone, { ...body, ownership_challenge: token });
        assertSucceeds(created);
        assert.equal(created.body.result.destination_conf, conf);
      });

      it('answers validate/destination for a bucket with a write-and-remove probe', async () => {
        const zone = await h.zone();
        const dir = freshDir('s3probe');
        const res = await t.call('POST', `${h.base(zone)}/validate/destination`, { body: { destination_conf: s3WithKeys(dir) } });
        assertSucceeds(res);
        assert.deepEqual(res.body.result, { valid: true, message: '' });
        assert.deepEqual(await listS3Keys(`${dir}/`), []);
        const wrong = await t.call('POST', `${h.base(zone)}/validate/destination`, {
          body: { destination_conf: `s3://${bucket}/${dir}?region=us-east-1&endpoint=${s3Endpoint()}&access-key-id=WRONG&secret-access-key=WRONG` },
        });
        assertSucceeds(wrong);
        assert.equal(wrong.body.result.valid, false);
        assert.ok(wrong.body.result.message.length > 0);
      });
    });

    describe('HTTP destinations on loopback', () => {
      let receiver: Receiver;
      before(async () => {
        receiver = await startReceiver();
      });
      after(async () => receiver.close());

      it('posts the gzip test body when a job is created', async () => {
        const zone = await h.zone();
        const before = receiver.requests.length;
        const conf = `${receiver.url}/logs/${freshDir('http')}?tag=a&header_X-Token=t0k3n`;
        assertSucceeds(await h.create(zone, { destination_conf: conf, output_options: { field_names: fields } }));
        const posted = receiver.requests.slice(before);
        assert.equal(posted.length, 1);
        const request = posted[0] as Received;
        assert.match(request.url, /^\/logs\/http-\d+\?tag=a$/);
        assert.equal(request.headers['content-encoding'], 'gzip');
        assert.equal(request.headers['x-token'], 't0k3n');
        assert.equal(gunzipSync(request.body).toString('utf8'), '{"content":"tests"}');
      });

      it('posts the test body again when an update changes the destination, and not otherwise', async () => {
        const zone = await h.zone();
        const conf = `${receiver.url}/first`;
        const created = await h.create(zone, { destination_conf: conf, output_options: { field_names: fields } });
        assertSucceeds(created);
        const url = `${h.base(zone)}/jobs/${created.body.result.id}`;
        let before = receiver.requests.length;
        assertSucceeds(await t.call('PUT', url, { body: { enabled: true, destination_conf: conf } }));
        assert.equal(receiver.requests.length, before);
        before = receiver.requests.length;
        assertSucceeds(await t.call('PUT', url, { body: { destination_conf: `${receiver.url}/second` } }));
        assert.equal(receiver.requests.length, before + 1);
        assert.equal(receiver.requests.at(-1)?.url, '/second');
      });

      it('refuses a job whose endpoint answers the test body with 403, saying so', async () => {
        const zone = await h.zone();
        const refusing = await startReceiver(403);
        try {
          const res = await h.create(zone, { destination_conf: `${refusing.url}/in`, output_options: { field_names: fields } });
          assertFails(res, 400, 1004, '/destination_conf', /error validating destination: .*403/);
          assert.equal(refusing.requests.length, 1);
          assert.deepEqual(await h.list(zone), []);
        } finally {
          await refusing.close();
        }
      });

      it('refuses a job whose endpoint cannot be reached', async () => {
        const zone = await h.zone();
        const res = await h.create(zone, { destination_conf: `http://127.0.0.1:${await closedPort()}/in`, output_options: { field_names: fields } });
        assertFails(res, 400, 1004, '/destination_conf', /refused the connection/);
      });
    });

    describe('validate endpoints', () => {
      it('validates a file destination by writing and removing a probe', async () => {
        const zone = await h.zone();
        const dir = freshDir('probe');
        const res = await t.call('POST', `${h.base(zone)}/validate/destination`, { body: { destination_conf: `file:///${dir}` } });
        assertSucceeds(res);
        assert.deepEqual(res.body.result, { valid: true, message: '' });
        assert.deepEqual(fs.readdirSync(path.join(t.config.exportRoot, dir)), []);
      });

      it('validates an HTTP destination by posting the test body', async () => {
        const receiver = await startReceiver();
        try {
          const zone = await h.zone();
          const res = await t.call('POST', `${h.base(zone)}/validate/destination`, { body: { destination_conf: `${receiver.url}/check` } });
          assertSucceeds(res);
          assert.deepEqual(res.body.result, { valid: true, message: '' });
          assert.equal(receiver.requests.length, 1);
          assert.equal(gunzipSync((receiver.requests[0] as Received).body).toString('utf8'), '{"content":"tests"}');
          receiver.status = 500;
          const failing = await t.call('POST', `${h.base(zone)}/validate/destination`, { body: { destination_conf: `${receiver.url}/check` } });
          assertSucceeds(failing);
          assert.equal(failing.body.result.valid, false);
          assert.match(failing.body.result.message, /500/);
        } finally {
          await receiver.close();
        }
      });

      it('answers an unreachable destination with valid: false and a message', async () => {
        const zone = await h.zone();
        const res = await t.call('POST', `${h.base(zone)}/validate/destination`, { body: { destination_conf: `http://127.0.0.1:${await closedPort()}/in` } });
        assertSucceeds(res);
        assert.equal(res.body.result.valid, false);
        assert.match(res.body.result.message, /^error validating destination: .*refused the connection/);
      });

      it('says whether a job of this zone already delivers to a destination', async () => {
        const zone = await h.zone();
        const otherZone = await h.zone();
        const dir = freshDir('exists');
        const exists = async (z: string, conf: string): Promise<boolean> => {
          const res = await t.call('POST', `${h.base(z)}/validate/destination/exists`, { body: { destination_conf: conf } });
          assertSucceeds(res);
          assert.deepEqual(Object.keys(res.body.result), ['exists']);
          return res.body.result.exists as boolean;
        };
        const conf = s3WithKeys(dir);
        assert.equal(await exists(zone, conf), false);
        assertSucceeds(await h.create(zone, { destination_conf: conf, output_options: { field_names: fields } }));
        assert.equal(await exists(zone, conf), true);
        // the same place with other credentials is the same destination
        assert.equal(await exists(zone, s3WithKeys(dir, 'OTHER')), true);
        assert.equal(await exists(zone, s3WithKeys(`${dir}-other`)), false);
        assert.equal(await exists(otherZone, conf), false);
      });

      it('answers validate/origin with valid logpull_options as valid and bad ones with a message', async () => {
        const zone = await h.zone();
        const origin = async (body: unknown): Promise<{ valid: boolean; message: string }> => {
          const res = await t.call('POST', `${h.base(zone)}/validate/origin`, { body });
          assertSucceeds(res);
          return res.body.result;
        };
        assert.deepEqual(await origin({ logpull_options: 'fields=RayID,ClientIP&timestamps=rfc3339' }), { valid: true, message: '' });
        assert.deepEqual(await origin({ logpull_options: 'fields=RayID&sample=0.5', dataset: 'http_requests' }), { valid: true, message: '' });
        const unknown = await origin({ logpull_options: 'fields=RayID,Bogus' });
        assert.equal(unknown.valid, false);
        assert.match(unknown.message, /"Bogus"/);
        const noFields = await origin({ logpull_options: 'timestamps=rfc3339' });
        assert.equal(noFields.valid, false);
        assert.match(noFields.message, /fields/);
        const badTimestamps = await origin({ logpull_options: 'fields=RayID&timestamps=iso' });
        assert.equal(badTimestamps.valid, false);
        assertFails(await t.call('POST', `${h.base(zone)}/validate/origin`, { body: { logpull_options: 'fields=RayID', dataset: 'dns_logs' } }), 400, 1004, '/dataset');
      });
    });

    describe('datasets', () => {
      it('lists every field of the http_requests catalogue, custom-field objects included', async () => {
        const zone = await h.zone();
        const res = await t.call('GET', `${h.base(zone)}/datasets/http_requests/fields`);
        assertSucceeds(res);
        assert.deepEqual(Object.keys(res.body.result).sort(), httpRequests.fields.map((f) => f.name).sort());
        for (const name of ['Cookies', 'RequestHeaders', 'ResponseHeaders', 'RayID', 'EdgeStartTimestamp']) {
          assert.equal(typeof res.body.result[name], 'string', name);
          assert.ok(res.body.result[name].length > 0, name);
        }
      });

      it('refuses an unknown dataset with 400', async () => {
        const zone = await h.zone();
        for (const route of ['datasets/dns_logs/fields', 'datasets/nope/jobs']) {
          const res = await t.call('GET', `${h.base(zone)}/${route}`);
          assert.equal(res.status, 400, res.text);
          assert.equal(res.body.success, false);
          assert.match(res.body.errors[0].message, /http_requests/);
        }
      });
    });

    describe('bad requests', () => {
      it('answers malformed JSON with 400 / 6007', async () => {
        const zone = await h.zone();
        const res = await t.call('POST', `${h.base(zone)}/jobs`, { raw: '{"destination_conf": ', headers: { 'content-type': 'application/json' } });
        assertFails(res, 400, 6007);
        const job = await h.created(zone);
        assertFails(await t.call('PUT', `${h.base(zone)}/jobs/${job.id}`, { raw: '{enabled: true}', headers: { 'content-type': 'application/json' } }), 400, 6007);
      });

      it('answers a body that is not a JSON object with 400', async () => {
        const zone = await h.zone();
        for (const raw of ['[]', '"job"', '42', 'null', 'true', '']) {
          const res = await t.call('POST', `${h.base(zone)}/jobs`, { raw, headers: { 'content-type': 'application/json' } });
          assert.equal(res.status, 400, `${raw}: ${res.text}`);
          assert.equal(res.body.success, false);
          assert.match(res.body.errors[0].message, /JSON object/);
        }
        assert.deepEqual(await h.list(zone), []);
      });

      it('answers a job id that is not a positive integer with 400 / 7003', async () => {
        const zone = await h.zone();
        for (const id of ['abc', '0', '-1', '1.5', '01', '99999999999999999999']) {
          for (const method of ['GET', 'PUT', 'DELETE']) {
            const res = await t.call(method, `${h.base(zone)}/jobs/${id}`, method === 'PUT' ? { body: { enabled: true } } : {});
            assertFails(res, 400, 7003);
          }
        }
      });

      it('answers an unknown job with 404', async () => {
        const zone = await h.zone();
        assertFails(await t.call('GET', `${h.base(zone)}/jobs/987654`), 404, 10404);
      });

      it('never shows, changes or deletes a job of another zone of the same user', async () => {
        const zone = await h.zone();
        const otherZone = await h.zone();
        const job = await h.created(zone, { name: 'private-job' });
        for (const [method, body] of [['GET', undefined], ['PUT', { enabled: true }], ['DELETE', undefined]] as const) {
          const res = await t.call(method, `${h.base(otherZone)}/jobs/${job.id}`, body === undefined ? {} : { body });
          assert.ok(res.status === 404 || res.status === 403, res.text);
          assert.ok(!res.text.includes('private-job'), res.text);
        }
        assert.deepEqual(await h.list(otherZone), []);
        assert.deepEqual((await t.call('GET', `${h.base(zone)}/jobs/${job.id}`)).body.result, job);
      });
    });
  });

  describe(`configured limits under /${word}`, () => {
    let h: Harness;
    before(async () => {
      h = await harness(word, { LOGEXPORT_MAX_JOBS_PER_ZONE: '2', LOGEXPORT_FILTER_MAX_OPERATORS: '3', LOGEXPORT_FILTER_MAX_BYTES: '200' });
    });
    after(async () => h.t.stop());

    it('follows LOGEXPORT_MAX_JOBS_PER_ZONE', async () => {
      const zone = await h.zone();
      await h.created(zone);
      await h.created(zone);
      assertFails(await h.create(zone, await h.fileJob(zone)), 403, 1004, undefined, /exceeded max jobs allowed/);
      assert.equal((await h.list(zone)).length, 2);
    });

    it('follows LOGEXPORT_FILTER_MAX_OPERATORS', async () => {
      const zone = await h.zone();
      await h.created(zone, { filter: filterOfConditions(3) });
      assertFails(await h.create(zone, await h.fileJob(zone, { filter: filterOfConditions(4) })), 400, 1004, '/filter', /\/where\/and\/3: the filter has 4 operators.*at most 3/);
    });

    it('follows LOGEXPORT_FILTER_MAX_BYTES', async () => {
      const zone = await h.zone();
      await h.created(zone, { filter: filterOfBytes(200) });
      assertFails(await h.create(zone, await h.fileJob(zone, { filter: filterOfBytes(201) })), 400, 1004, '/filter', /201 bytes.*at most 200/);
    });
  });

  describe(`the 30-operator limit under /${word}, with room to spare on bytes`, () => {
    let h: Harness;
    before(async () => {
      h = await harness(word, { LOGEXPORT_FILTER_MAX_BYTES: '100000' });
    });
    after(async () => h.t.stop());

    it('accepts 30 operators and refuses 31', async () => {
      const zone = await h.zone();
      await h.created(zone, { filter: filterOfConditions(30) });
      assertFails(await h.create(zone, await h.fileJob(zone, { filter: filterOfConditions(31) })), 400, 1004, '/filter', /\/where\/and\/30: the filter has 31 operators.*at most 30/);
    });
  });

  describe(`private destinations under /${word}, when they are not allowed`, () => {
    let t: TestApp;
    let zone: string;
    let receiver: Receiver;
    before(async () => {
      t = await startTestApp();
      zone = await t.zone(await t.user());
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await t.stop();
    });
    const base = (): string => `/zones/${zone}/${word}`;

    it('refuses an HTTP destination on loopback with a clear 400, and posts nothing', async () => {
      for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
        const res = await t.call('POST', `${base()}/jobs`, { body: { destination_conf: `${receiver.url.replace('127.0.0.1', host)}/in`, output_options: { field_names: fields } } });
        assertFails(res, 400, 1004, '/destination_conf', /loopback address; private destinations are refused unless LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS=true/);
      }
      assert.equal(receiver.requests.length, 0);
    });

    it('refuses an S3 endpoint on loopback with a clear 400, on create and on ownership', async () => {
      const res = await t.call('POST', `${base()}/jobs`, { body: { destination_conf: s3WithKeys('private'), output_options: { field_names: fields } } });
      assertFails(res, 400, 1004, '/destination_conf', /loopback address.*LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS/);
      const challenge = await t.call('POST', `${base()}/ownership`, { body: { destination_conf: s3WithoutKeys('private') } });
      assertFails(challenge, 400, 1004, '/destination_conf', /loopback address/);
      assert.deepEqual(await listS3Keys('private/'), []);
    });

    it('answers validate/destination for a loopback destination with valid: false and the reason', async () => {
      const res = await t.call('POST', `${base()}/validate/destination`, { body: { destination_conf: `${receiver.url}/in` } });
      assertSucceeds(res);
      assert.equal(res.body.result.valid, false);
      assert.match(res.body.result.message, /LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS/);
      assert.equal(receiver.requests.length, 0);
    });

    it('still takes file destinations', async () => {
      const conf = `file:///${freshDir('still')}`;
      const res = await t.call('POST', `${base()}/ownership`, { body: { destination_conf: conf } });
      assertSucceeds(res);
      const token = fs.readFileSync(path.join(t.config.exportRoot, res.body.result.filename), 'utf8');
      assertSucceeds(await t.call('POST', `${base()}/jobs`, { body: { destination_conf: conf, ownership_challenge: token, output_options: { field_names: fields } } }));
    });
  });
}
