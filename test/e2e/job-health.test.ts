/**
 * What a job's health is read from (`GET …/jobs/{id}/stats`): a batch being retried counts its records as
 * received and pending, since when the job has been failing and when it will be disabled, and who disabled
 * a job and when — a user, or logexport after failing too long.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createJob, event, ingestEvents, rayIds, resultOf, startPlane, startReceiver, updateJob, waitFor, waitForDelivered, waitForJob, type PlaneHarness } from './support/data-plane.ts';

const batchRecords = 1000;

describe("a job's health figures", () => {
  let h: PlaneHarness;
  before(async () => {
    h = await startPlane();
  });
  after(() => h.stop());

  async function stats(jobId: number) {
    return resultOf(await h.t.call('GET', `/zones/${h.zone}/logexport/jobs/${jobId}/stats`));
  }

  it('counts the records of a batch being retried as received and pending, then as delivered once it goes through', async () => {
    const zone = await h.t.zone(h.owner);
    const plane = { ...h, zone };
    const receiver = await startReceiver();
    try {
      const job = await createJob(plane, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] }, max_upload_records: batchRecords });
      receiver.fallback = { kind: 'status', status: 503 };
      await ingestEvents(plane, rayIds('retried', 0, batchRecords).map((id) => event(id)));
      await waitFor('two failed attempts', () => (receiver.requests.filter((r) => r.headers['x-logexport-batch'] !== undefined).length >= 2 ? true : undefined));
      const failing = resultOf(await h.t.call('GET', `/zones/${zone}/logexport/jobs/${job.id}/stats`));
      assert.equal(failing.counters.received, batchRecords, 'Received does not stay 0 while the batch is retried');
      assert.equal(failing.counters.pending, batchRecords);
      assert.equal(failing.counters.delivered_records, 0);
      assert.ok(failing.counters.failures >= 2);
      assert.ok(failing.status.failing_since !== null && !Number.isNaN(Date.parse(failing.status.failing_since)));
      assert.equal(Date.parse(failing.status.disables_at) - Date.parse(failing.status.failing_since), 24 * 3_600_000);
      assert.equal(failing.status.disabled, null);

      receiver.fallback = { kind: 'status', status: 200 };
      await waitForDelivered(receiver, batchRecords);
      const done = await waitFor('the batch to be counted', async () => {
        const s = resultOf(await h.t.call('GET', `/zones/${zone}/logexport/jobs/${job.id}/stats`));
        return s.counters.delivered_records === batchRecords ? s : undefined;
      });
      assert.equal(done.counters.received, batchRecords, 'counted once');
      assert.equal(done.counters.pending, 0);
      assert.equal(done.status.failing_since, null);
    } finally {
      await receiver.close();
    }
  });

  it('says a user disabled a job, and when', async () => {
    const receiver = await startReceiver();
    try {
      const job = await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] } });
      assert.equal((await stats(job.id)).status.disabled, null);
      const disabled = await updateJob(h, job.id, { enabled: false });
      assert.equal(disabled.enabled, false);
      const { status } = await stats(job.id);
      assert.equal(status.disabled.by, 'user');
      assert.equal(status.disabled.email, h.owner.email);
      assert.ok(Math.abs(Date.parse(status.disabled.at) - Date.now()) < 60_000);
      assert.equal(status.failing_since, null);

      // A token's change says so; a job created disabled is disabled since its creation.
      const token = await h.t.token(h.owner, [h.zone], ['logs:edit']);
      await updateJob(h, job.id, { enabled: true });
      const viaToken = await h.t.call('PUT', `/zones/${h.zone}/logexport/jobs/${job.id}`, { body: { enabled: false }, auth: { token } });
      assert.equal(viaToken.status, 200, viaToken.text);
      assert.equal((await stats(job.id)).status.disabled.by, 'token');
      const created = await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] }, enabled: false });
      const since = (await stats(created.id)).status.disabled;
      assert.deepEqual([since.by, since.email], ['user', h.owner.email]);
    } finally {
      await receiver.close();
    }
  });

  it('says logexport disabled a job that failed for too long, and why', async () => {
    const plane = await startPlane({ LOGEXPORT_DISABLE_FAILING_JOBS_AFTER: '3s' });
    const receiver = await startReceiver();
    try {
      const job = await createJob(plane, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] }, max_upload_records: batchRecords });
      receiver.fallback = { kind: 'status', status: 503 };
      await ingestEvents(plane, rayIds('stale', 0, batchRecords).map((id) => event(id)));
      const disabled = await waitForJob(plane, job.id, 'the job to be disabled', (j) => !j.enabled, 10_000);
      const { status, counters } = resultOf(await plane.t.call('GET', `/zones/${plane.zone}/logexport/jobs/${job.id}/stats`));
      assert.equal(status.disabled.by, 'logexport');
      assert.equal(status.disabled.email, null);
      assert.match(status.disabled.reason, /no delivery for/);
      const gap = Date.parse(status.disabled.at) - Date.parse(disabled.last_error ?? '');
      assert.ok(gap >= 0 && gap < 1000, `disabled at its last failed attempt (${gap} ms after it)`);
      assert.equal(status.failing_since, null, 'a disabled job is not retrying');
      assert.equal(counters.pending, 0, 'its batch stays queued, counted when it is delivered');
    } finally {
      await receiver.close();
      await plane.stop();
    }
  });
});
