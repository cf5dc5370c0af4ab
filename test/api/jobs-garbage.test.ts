/**
 * Random input to the jobs API never crashes the server: whatever is POSTed to …/jobs, the answer is a
 * 4xx in the v4 envelope with a code and a message, and no job is stored; whatever is PUT to a job either
 * leaves a valid job or is refused and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type ApiAnswer, type TestApp } from '../support/test-app.ts';

// A file destination without a valid challenge token can never be accepted, so every body below must be
// refused; a random ownership_challenge cannot carry the server's signature.
const destination = 'file:///garbage';
const fields = ['RayID', 'ClientIP'];

const jobKeys = [
  'name', 'dataset', 'kind', 'enabled', 'destination_conf', 'ownership_challenge', 'filter', 'output_options',
  'logpull_options', 'frequency', 'max_upload_bytes', 'max_upload_records', 'max_upload_interval_seconds',
  'filter_attack_traffic', 'id', 'last_complete',
];
const outputKeys = [
  'field_names', 'output_type', 'batch_prefix', 'batch_suffix', 'record_prefix', 'record_suffix', 'record_delimiter',
  'field_delimiter', 'record_template', 'timestamp_format', 'sample_rate', 'CVE-2021-44228', 'CVE-2021-4428', 'merge_subrequests',
];
const filterKeys = ['where', 'and', 'or', 'key', 'operator', 'value'];

/** JSON values, biased towards the names the parsers look for. */
const value = fc.jsonValue({ maxDepth: 3 });
const nearFilterNode: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.record({ key: fc.oneof(fc.constantFrom('ClientCountry', 'EdgeResponseStatus', 'BotTags', 'Cookies', 'RayID'), fc.string()), operator: fc.oneof(fc.constantFrom('eq', '!eq', 'lt', 'in', '!in', 'contains', 'startsWith'), fc.string()), value }, { requiredKeys: [] }),
    fc.dictionary(fc.constantFrom('and', 'or'), fc.array(tie('node'), { maxLength: 4 }), { maxKeys: 2 }),
    value,
  ),
})).node;

/** Strings to put in `filter`: anything, JSON texts, and near-misses of real filters. */
const filterText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.json(),
  nearFilterNode.map((node) => JSON.stringify({ where: node })),
  fc.dictionary(fc.constantFrom(...filterKeys), nearFilterNode, { maxKeys: 3 }).map((doc) => JSON.stringify(doc)),
);

/** Objects to put in `output_options`: known and unknown keys with any values, field lists of any names. */
const outputOptions = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom(...outputKeys), fc.string()), value, { maxKeys: 6 }),
  fc.record({ field_names: fc.array(fc.oneof(fc.constantFrom('RayID', 'ClientIP', 'Cookies'), fc.string(), value), { maxLength: 5 }) }),
  value,
);

/** A body to POST: random JSON, or a nearly valid job with one part random. */
const body = fc.oneof(
  value.map((v) => ({ raw: JSON.stringify(v) })),
  fc.string().map((raw) => ({ raw })),
  fc.dictionary(fc.oneof(fc.constantFrom(...jobKeys), fc.string()), value, { maxKeys: 8 }).map((v) => ({ raw: JSON.stringify(v) })),
  filterText.map((filter) => ({ raw: JSON.stringify({ destination_conf: destination, output_options: { field_names: fields }, filter }) })),
  outputOptions.map((options) => ({ raw: JSON.stringify({ destination_conf: destination, output_options: options }) })),
  fc
    .record({ key: fc.constantFrom(...jobKeys.filter((k) => k !== 'destination_conf')), v: value })
    .map(({ key, v }) => ({ raw: JSON.stringify({ destination_conf: destination, output_options: { field_names: fields }, [key]: v }) })),
);

function assertRefusal(res: ApiAnswer, sent: string): void {
  const context = `sent ${sent.slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;
  assert.ok(res.status >= 400 && res.status < 500, context);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/, context);
  assert.equal(res.body?.success, false, context);
  assert.equal(res.body.result, null, context);
  assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, context);
  const first = res.body.errors[0] as { code?: unknown; message?: unknown };
  assert.ok(typeof first.code === 'number' && Number.isInteger(first.code), context);
  assert.ok(typeof first.message === 'string' && first.message.trim().length > 0, context);
}

describe('random job bodies', () => {
  let t: TestApp;
  let zone: string;

  before(async () => {
    t = await startTestApp();
    zone = await t.zone(await t.user());
  });
  after(async () => t.stop());

  it('are always refused with a 4xx in the v4 envelope, and nothing is stored', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('logexport', 'logpush'), async ({ raw }, word) => {
        const res = await t.call('POST', `/zones/${zone}/${word}/jobs`, { raw, headers: { 'content-type': 'application/json' } });
        assertRefusal(res, raw);
        assert.deepEqual(await t.app.store.listJobs(zone), [], `sent ${raw.slice(0, 300)}: a job was stored`);
      }),
      { numRuns: 400 },
    );
    const list = await t.call('GET', `/zones/${zone}/logexport/jobs`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.result, []);
    assert.deepEqual(await t.app.store.listJobs(zone), []);
  });

  it('sent as updates either change a job into another valid job or are refused and change nothing', async () => {
    const conf = 'file:///garbage-update';
    const challenge = await t.call('POST', `/zones/${zone}/logexport/ownership`, { body: { destination_conf: conf } });
    const token = fs.readFileSync(path.join(t.config.exportRoot, challenge.body.result.filename), 'utf8');
    const created = await t.call('POST', `/zones/${zone}/logexport/jobs`, { body: { destination_conf: conf, ownership_challenge: token, output_options: { field_names: fields } } });
    assert.equal(created.status, 200, created.text);
    const url = `/zones/${zone}/logpush/jobs/${created.body.result.id}`;
    await fc.assert(
      fc.asyncProperty(body, async ({ raw }) => {
        const before = await t.call('GET', url);
        const res = await t.call('PUT', url, { raw, headers: { 'content-type': 'application/json' } });
        if (res.status === 200) {
          // whatever was stored must still compile: an empty update re-checks the whole job
          const again = await t.call('PUT', url, { body: {} });
          assert.equal(again.status, 200, `sent ${raw.slice(0, 300)}, then {} → ${again.text.slice(0, 300)}`);
        } else {
          assertRefusal(res, raw);
          assert.deepEqual((await t.call('GET', url)).body, before.body, `sent ${raw.slice(0, 300)}: the job changed`);
        }
      }),
      { numRuns: 200 },
    );
    assert.equal((await t.call('DELETE', url)).status, 200);
  });

  it('leave the server answering normally afterwards', async () => {
    const res = await t.call('GET', `/zones/${zone}/logpush/datasets/http_requests/fields`);
    assert.equal(res.status, 200);
  });
});
