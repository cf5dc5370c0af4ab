/**
 * Delivery when the destination misbehaves, on a node with fast retries: down then up, 500, 429 with
 * Retry-After, 403 until fixed, a destination that hangs past the delivery timeout, and a job that keeps
 * failing long enough to be disabled (its events stay queued, and enabling it again delivers them).
 * Nothing is lost in any of them, and the job's status fields say what happened.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createJob,
  event,
  getJob,
  ingestEvents,
  rayIds,
  resultOf,
  startPlane,
  startReceiver,
  updateJob,
  waitFor,
  waitForDelivered,
  waitForJob,
  type JobAnswer,
  type PlaneHarness,
  type Receiver,
} from './support/data-plane.ts';

const batchRecords = 1000;
const deliveryTimeoutMs = 300;

/** The batch POSTs a receiver got (the test upload made when the job was created is not one). */
function batchesOf(receiver: Receiver): Receiver['requests'] {
  return receiver.requests.filter((r) => r.headers['x-logexport-batch'] !== undefined);
}

/** Gaps between consecutive batch POSTs, in ms. */
function gaps(receiver: Receiver): number[] {
  const times = batchesOf(receiver).map((r) => r.at);
  return times.slice(1).map((t, i) => t - (times[i] ?? t));
}

describe('delivery faults', () => {
  let node: PlaneHarness;
  before(async () => {
    node = await startPlane({ LOGEXPORT_DELIVERY_TIMEOUT: `${deliveryTimeoutMs}ms` });
  });
  after(() => node.stop());

  /** A zone of its own (every enabled job of a zone gets its events), a receiver and a job posting to it. */
  async function setUp(): Promise<{ h: PlaneHarness; receiver: Receiver; job: JobAnswer }> {
    const h: PlaneHarness = { ...node, zone: await node.t.zone(node.owner) };
    const receiver = await startReceiver();
    const job = await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] }, max_upload_records: batchRecords });
    return { h, receiver, job };
  }

  async function stats(h: PlaneHarness, jobId: number): Promise<Record<string, number>> {
    return resultOf(await h.t.call('GET', `/zones/${h.zone}/logexport/jobs/${jobId}/stats`)).counters;
  }

  it('delivers everything once a destination that refused connections is back', async () => {
    const { h, receiver, job } = await setUp();
    const port = receiver.port;
    await receiver.close();
    const ids = rayIds('down', 0, batchRecords);
    await ingestEvents(h, ids.map((id) => event(id)));
    const failing = await waitForJob(h, job.id, 'the job to record the failure', (j) => j.error_message !== null);
    assert.match(failing.error_message ?? '', /refused the connection/);
    assert.ok(failing.last_error !== null);
    assert.equal(failing.last_complete, null);

    const back = await startReceiver(port);
    try {
      await waitForDelivered(back, batchRecords);
      assert.deepEqual(back.deliveredRayIds(), ids);
      const delivered = await waitForJob(h, job.id, 'the job status to clear', (j) => j.last_complete !== null);
      assert.equal(delivered.error_message, null);
      assert.equal(delivered.last_error, null);
    } finally {
      await back.close();
    }
  });

  it('retries a batch answered 500, under the same name, until it is delivered', async () => {
    const { h, receiver, job } = await setUp();
    try {
      receiver.script.push({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
      const ids = rayIds('five-hundred', 0, batchRecords);
      await ingestEvents(h, ids.map((id) => event(id)));
      await waitForDelivered(receiver, batchRecords);
      const batches = batchesOf(receiver);
      assert.equal(batches.length, 3);
      assert.equal(new Set(batches.map((b) => b.headers['x-logexport-batch'])).size, 1, 'the same batch each time');
      assert.deepEqual(receiver.deliveredRayIds(), ids);
      const counters = await stats(h, job.id);
      assert.equal(counters.failures, 2);
      assert.equal(counters.retries, 2, 'two attempts were retries, the successful one included');
      assert.equal(counters.batches, 1);
    } finally {
      await receiver.close();
    }
  });

  it('waits exactly as long as Retry-After says after a 429', async () => {
    const { h, receiver } = await setUp();
    try {
      receiver.script.push({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });
      await ingestEvents(h, rayIds('throttled', 0, batchRecords).map((id) => event(id)));
      await waitForDelivered(receiver, batchRecords);
      const [gap] = gaps(receiver);
      assert.ok(gap !== undefined && gap >= 990 && gap < 1500, `retried after ${gap} ms`);
    } finally {
      await receiver.close();
    }
  });

  it('keeps retrying a 403 slowly, says why, and clears the error once the destination accepts again', async () => {
    const { h, receiver, job } = await setUp();
    try {
      receiver.fallback = { kind: 'status', status: 403 };
      const ids = rayIds('forbidden', 0, batchRecords);
      await ingestEvents(h, ids.map((id) => event(id)));
      await waitFor('three refused attempts', () => (batchesOf(receiver).length >= 3 ? true : undefined));
      const failing = await getJob(h, job.id);
      assert.match(failing.error_message ?? '', /answered 403.*credentials/);
      assert.ok(failing.last_error !== null && !Number.isNaN(Date.parse(failing.last_error)));
      assert.equal(failing.enabled, true);
      for (const gap of gaps(receiver)) assert.ok(gap >= 490, `a permanent failure was retried after ${gap} ms`);

      receiver.fallback = { kind: 'status', status: 200 };
      await waitForDelivered(receiver, batchRecords, 5000);
      assert.deepEqual(receiver.deliveredRayIds(), ids);
      const fixed = await waitForJob(h, job.id, 'the job status to clear', (j) => j.error_message === null);
      assert.equal(fixed.last_error, null);
      assert.ok(fixed.last_complete !== null && !Number.isNaN(Date.parse(fixed.last_complete)));
    } finally {
      await receiver.close();
    }
  });

  it('gives up on a destination that hangs after LOGEXPORT_DELIVERY_TIMEOUT and sends again', async () => {
    const { h, receiver, job } = await setUp();
    try {
      receiver.script.push({ kind: 'hang' });
      const ids = rayIds('hang', 0, batchRecords);
      await ingestEvents(h, ids.map((id) => event(id)));
      await waitForDelivered(receiver, batchRecords);
      const [gap] = gaps(receiver);
      assert.ok(gap !== undefined && gap >= deliveryTimeoutMs - 10 && gap < deliveryTimeoutMs + 700, `sent again after ${gap} ms`);
      assert.deepEqual(receiver.deliveredRayIds(), ids);
      assert.equal((await stats(h, job.id)).failures, 1);
    } finally {
      await receiver.close();
    }
  });

});

describe('a job that fails for too long', () => {
  let h: PlaneHarness;
  before(async () => {
    h = await startPlane({ LOGEXPORT_DISABLE_FAILING_JOBS_AFTER: '2s' });
  });
  after(() => h.stop());

  it('is disabled, keeps its events queued, and delivers them once enabled again', async () => {
    const receiver = await startReceiver();
    try {
      const job = await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] }, max_upload_records: batchRecords });
      receiver.fallback = { kind: 'status', status: 503 };
      const ids = rayIds('stale', 0, batchRecords);
      await ingestEvents(h, ids.map((id) => event(id)));
      const disabled = await waitForJob(h, job.id, 'the job to be disabled', (j) => !j.enabled, 8000);
      assert.match(disabled.error_message ?? '', /503/);
      // The audit log says logexport itself disabled it, and why.
      const audit = await h.t.call('GET', `/user/audit_logs?action.type=job.disable`);
      assert.equal(audit.status, 200, audit.text);
      assert.equal(audit.body.result.length, 1);
      assert.equal(audit.body.result[0].actor.type, 'system');
      assert.equal(audit.body.result[0].resource.id, String(job.id));
      assert.match(audit.body.result[0].metadata.last_error, /503/);
      assert.ok(h.t.app.queue.pendingBytes() > 0, 'its events are still queued');
      assert.deepEqual(h.t.app.supervisor.runningJobIds(), []);
      const attempts = receiver.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.requests.length, attempts, 'a disabled job sends nothing');

      receiver.fallback = { kind: 'status', status: 200 };
      await updateJob(h, job.id, { enabled: true });
      await waitForDelivered(receiver, batchRecords);
      assert.deepEqual(receiver.deliveredRayIds(), ids);
      const resumed = await waitForJob(h, job.id, 'the job status to clear', (j) => j.last_complete !== null);
      assert.equal(resumed.enabled, true);
      assert.equal(resumed.error_message, null);
    } finally {
      await receiver.close();
    }
  });
});

describe('a job whose destination hangs', () => {
  it('is changed at once, without waiting for the delivery timeout (30 s by default)', async () => {
    const h = await startPlane();
    const receiver = await startReceiver();
    try {
      const job = await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] }, max_upload_records: batchRecords });
      receiver.fallback = { kind: 'hang' };
      await ingestEvents(h, rayIds('hung', 0, batchRecords).map((id) => event(id)));
      await waitFor('the batch to be on its way', () => (batchesOf(receiver).length > 0 ? true : undefined));
      const started = performance.now();
      await updateJob(h, job.id, { enabled: false });
      const took = performance.now() - started;
      assert.ok(took < 2000, `disabling took ${Math.round(took)} ms`);
      assert.deepEqual(h.t.app.supervisor.runningJobIds(), []);
      const counters = resultOf(await h.t.call('GET', `/zones/${h.zone}/logexport/jobs/${job.id}/stats`)).counters;
      assert.equal(counters.failures, 0, 'the cut-short attempt is not a destination failure');
    } finally {
      await receiver.close();
      await h.stop();
    }
  });
});
