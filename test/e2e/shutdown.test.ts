/**
 * Stopping a node (what SIGTERM does, in process): every runner delivers what was queued before the
 * stop — the batch in flight, the open batch, and chunks it had not fetched yet — within the shutdown
 * deadline; what the deadline cuts off stays queued for the next start. (The 503 that ingest answers
 * meanwhile is tested in test/api/ingest.test.ts; SIGTERM of a real process in crash.test.ts.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../../src/app.ts';
import { createJob, event, fastRetries, ingestEvents, rayIds, startPlane, startReceiver, waitFor } from './support/data-plane.ts';

const batchRecords = 1000;

describe('stopping a node', () => {
  it('delivers everything queued before the stop, including chunks the runner had not fetched yet', async () => {
    const h = await startPlane();
    const receiver = await startReceiver();
    try {
      receiver.fallback = { kind: 'status', status: 200, delayMs: 4000 };
      await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] }, max_upload_records: batchRecords });
      const first = rayIds('full', 0, batchRecords);
      await ingestEvents(h, first.map((id) => event(id)));
      // The full batch is on its way (the receiver answers after 4 s, long enough for the small requests below on a busy machine)…
      await waitFor('the first batch to arrive', () => (receiver.requests.length >= 2 ? true : undefined));
      // …while many small requests queue one chunk each, more than one fetch takes.
      const small = rayIds('small', 0, 150);
      await Promise.all(small.map((id) => ingestEvents(h, [event(id)])));
      assert.equal(receiver.deliveredRayIds().length, 0, 'the stop comes while the first batch is still in flight');
      await h.t.app.stop();
      assert.deepEqual(new Set(receiver.deliveredRayIds()), new Set([...first, ...small]));
      assert.equal(receiver.deliveredRayIds().length, first.length + small.length, 'each once');
    } finally {
      await receiver.close();
      await h.stop();
    }
  });

  it('gives up at the shutdown deadline, leaving what it could not deliver queued', async () => {
    const h = await startPlane({ LOGEXPORT_SHUTDOWN_TIMEOUT: '500ms' });
    const receiver = await startReceiver();
    try {
      await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] } });
      receiver.fallback = { kind: 'status', status: 503 };
      await ingestEvents(h, [event('stuck')]);
      const started = performance.now();
      await h.t.app.stop();
      const took = performance.now() - started;
      assert.ok(took >= 450 && took < 3000, `stopped after ${Math.round(took)} ms`);
      assert.deepEqual(receiver.deliveredRayIds(), []);

      // The next start on the same data directory delivers it.
      receiver.fallback = { kind: 'status', status: 200 };
      const again = await startApp(h.t.config, { retryPolicy: fastRetries });
      try {
        await waitFor('the event after the restart', () => (receiver.deliveredRayIds().length > 0 ? true : undefined));
        assert.deepEqual(receiver.deliveredRayIds(), ['stuck']);
      } finally {
        await again.stop();
      }
    } finally {
      await receiver.close();
      await h.stop();
    }
  });
});
