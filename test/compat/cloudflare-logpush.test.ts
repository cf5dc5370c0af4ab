/**
 * The official `cloudflare` npm client drives the log export API under its `logpush` path word: the
 * ownership challenge, jobs, the validate endpoints and the dataset endpoints, through step 4 of the
 * custom-fields workflow (a challenge on a `file://` destination, then a job exporting the custom fields
 * with a nested filter).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** The part of a job answer the test reads; the client's type leaves out `filter` and allows null. */
interface JobShape {
  id: number;
  dataset: string;
  kind: string;
  enabled: boolean;
  name: string | null;
  destination_conf: string;
  filter: string | null;
  output_options: unknown;
  last_complete: string | null;
  last_error: string | null;
  error_message: string | null;
}
const asJob = (value: unknown): JobShape => value as JobShape;

const nestedFilter = JSON.stringify({
  where: {
    and: [
      { key: 'ClientRequestHost', operator: 'eq', value: 'www.example.com' },
      { or: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { key: 'ClientCountry', operator: 'in', value: ['ca', 'us'] }] },
    ],
  },
});

const outputOptions = {
  field_names: ['RayID', 'EdgeStartTimestamp', 'ClientIP', 'RequestHeaders', 'ResponseHeaders', 'Cookies'],
  timestamp_format: 'rfc3339' as const,
  sample_rate: 0.1,
  'CVE-2021-44228': true,
};

let directories = 0;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

/** Step 4 of the custom-fields workflow and the rest of the log export API, through the client. */
async function logExportWorkflow(client: Cloudflare, t: TestApp, zoneId: string): Promise<void> {
  const conf = `file:///compat-${++directories}/{DATE}`;

  // the dataset's fields include the custom-field objects
  const fields = (await client.logpush.datasets.fields.get('http_requests', { zone_id: zoneId })) as Record<string, unknown>;
  for (const name of ['RequestHeaders', 'ResponseHeaders', 'Cookies', 'RayID']) assert.equal(typeof fields[name], 'string', name);

  // the ownership challenge: the file is written, the token in it validates
  const challenge = await client.logpush.ownership.create({ zone_id: zoneId, destination_conf: conf });
  assert.equal(challenge?.valid, true);
  assert.equal(challenge?.message, '');
  assert.match(challenge?.filename ?? '', /^compat-\d+\/ownership-challenge-[0-9a-f]{8}\.txt$/);
  const token = fs.readFileSync(path.join(t.config.exportRoot, challenge?.filename ?? ''), 'utf8');
  assert.deepEqual(await client.logpush.ownership.validate({ zone_id: zoneId, destination_conf: conf, ownership_challenge: token }), { valid: true });
  assert.deepEqual(await client.logpush.ownership.validate({ zone_id: zoneId, destination_conf: conf, ownership_challenge: `${token}x` }), { valid: false });

  // the validate endpoints
  assert.deepEqual(await client.logpush.validate.destination({ zone_id: zoneId, destination_conf: conf }), { valid: true, message: '' });
  assert.deepEqual(await client.logpush.validate.destinationExists({ zone_id: zoneId, destination_conf: conf }), { exists: false });
  assert.deepEqual(await client.logpush.validate.origin({ zone_id: zoneId, logpull_options: 'fields=RayID,ClientIP&timestamps=rfc3339' }), { valid: true, message: '' });
  const badOrigin = await client.logpush.validate.origin({ zone_id: zoneId, logpull_options: 'fields=RayID,NoSuchField' });
  assert.equal(badOrigin?.valid, false);
  assert.match(badOrigin?.message ?? '', /NoSuchField/);

  // the job of step 4
  const created = asJob(
    await client.logpush.jobs.create({
      zone_id: zoneId,
      name: 'custom-fields',
      dataset: 'http_requests',
      destination_conf: conf,
      ownership_challenge: token,
      filter: nestedFilter,
      output_options: outputOptions,
    }),
  );
  assert.ok(Number.isInteger(created.id) && created.id > 0);
  assert.equal(created.enabled, false);
  assert.equal(created.dataset, 'http_requests');
  assert.equal(created.kind, '');
  assert.equal(created.name, 'custom-fields');
  assert.equal(created.destination_conf, conf);
  assert.equal(created.filter, nestedFilter);
  assert.deepEqual(created.output_options, outputOptions);
  assert.equal(created.last_complete, null);
  assert.equal(created.last_error, null);
  assert.equal(created.error_message, null);
  assert.deepEqual(await client.logpush.validate.destinationExists({ zone_id: zoneId, destination_conf: conf }), { exists: true });

  // list, get, update, the dataset's jobs
  assert.deepEqual((await collect(client.logpush.jobs.list({ zone_id: zoneId }))).map(asJob), [created]);
  assert.deepEqual(asJob(await client.logpush.jobs.get(created.id, { zone_id: zoneId })), created);
  const enabled = asJob(await client.logpush.jobs.update(created.id, { zone_id: zoneId, enabled: true }));
  assert.deepEqual(enabled, { ...created, enabled: true });
  assert.deepEqual((await collect(client.logpush.datasets.jobs.get('http_requests', { zone_id: zoneId }))).map(asJob), [enabled]);

  // delete answers {id}; the job is gone
  assert.deepEqual(await client.logpush.jobs.delete(created.id, { zone_id: zoneId }), { id: created.id });
  assert.deepEqual(await collect(client.logpush.jobs.list({ zone_id: zoneId })), []);
  await assert.rejects(client.logpush.jobs.get(created.id, { zone_id: zoneId }), Cloudflare.NotFoundError);
}

describe('the official cloudflare npm client on the log export API', () => {
  let t: TestApp;
  let owner: { email: string; key: string; userId: string };

  before(async () => {
    t = await startTestApp();
    owner = await t.user();
  });
  after(async () => t.stop());

  const keyClient = (): Cloudflare => new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: owner.key, maxRetries: 0 });

  it('runs step 4 of the custom-fields workflow and every logpush call with the global API key', async () => {
    await logExportWorkflow(keyClient(), t, await t.zone(owner));
  });

  it('runs them with an API token', async () => {
    const zoneId = await t.zone(owner);
    const token = await t.token(owner, [zoneId], ['logs:edit']);
    await logExportWorkflow(new Cloudflare({ baseURL: t.baseUrl, apiToken: token, maxRetries: 0 }), t, zoneId);
  });

  it('surfaces refusals as typed client errors carrying the message', async () => {
    const zoneId = await t.zone(owner);
    const client = keyClient();
    await assert.rejects(
      client.logpush.jobs.create({ zone_id: zoneId, destination_conf: 'file:///unproven', output_options: { field_names: ['RayID'] } }),
      (error: unknown) => {
        assert.ok(error instanceof Cloudflare.BadRequestError);
        assert.match(String(error.message), /1004.*ownership_challenge is required/);
        return true;
      },
    );
    await assert.rejects(
      client.logpush.jobs.create({ zone_id: zoneId, destination_conf: 'gs://bucket/logs', output_options: { field_names: ['RayID'] } }),
      Cloudflare.BadRequestError,
    );
    await assert.rejects(client.logpush.jobs.get(424242, { zone_id: zoneId }), Cloudflare.NotFoundError);

    // the fifth job of a zone is refused with 403
    for (let i = 0; i < 5; i++) {
      const conf = `file:///limit-${++directories}`;
      const challenge = await client.logpush.ownership.create({ zone_id: zoneId, destination_conf: conf });
      const token = fs.readFileSync(path.join(t.config.exportRoot, challenge?.filename ?? ''), 'utf8');
      const create = client.logpush.jobs.create({ zone_id: zoneId, destination_conf: conf, ownership_challenge: token, output_options: { field_names: ['RayID'] } });
      if (i < 4) await create;
      else {
        await assert.rejects(create, (error: unknown) => {
          assert.ok(error instanceof Cloudflare.PermissionDeniedError);
          assert.match(String(error.message), /exceeded max jobs allowed/);
          return true;
        });
      }
    }
    const stranger = new Cloudflare({ baseURL: t.baseUrl, apiEmail: owner.email, apiKey: 'b'.repeat(37), maxRetries: 0 });
    await assert.rejects(collect(stranger.logpush.jobs.list({ zone_id: zoneId })), Cloudflare.PermissionDeniedError);
  });
});
