/**
 * Stopping a node (what SIGTERM does, in process): every runner delivers what was queued before the
 * stop — the batch in flight, the open batch, and chunks it had not fetched yet — within the shutdown
 * deadline; what the deadline cuts off stays queued for the next start. A batch whose destination is
 * failing is given up at once (it stays queued), and a served node says in its log what the stop waits
 * for. (The 503 that ingest answers meanwhile is tested in test/api/ingest.test.ts.)
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startApp } from '../../src/app.ts';
import { prepareTailNode, type TailNode } from '../sources/support/tail-node.ts';
import { killAllServed, serveNode, type ServedNode } from '../support/served-node.ts';
import { createJob, event, fastRetries, ingestEvents, rayIds, startPlane, startReceiver, waitFor, type Receiver } from './support/data-plane.ts';

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

  it('gives up at the shutdown deadline on a delivery that does not answer, leaving it queued', async () => {
    const h = await startPlane({ LOGEXPORT_SHUTDOWN_TIMEOUT: '500ms' });
    const receiver = await startReceiver();
    try {
      await createJob(h, { destination_conf: receiver.url, output_options: { field_names: ['RayID'] } });
      // The stop flushes the open batch, and the destination never answers: nothing says it is failing, so the stop waits for it.
      receiver.fallback = { kind: 'hang' };
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

/** Creates an HTTP job through the API of a served node, on the zone `prepareTailNode` made. */
async function servedJob(served: ServedNode, node: TailNode, destination: string): Promise<number> {
  const response = await fetch(`${served.url}/client/v4/zones/${node.zones['stop.example']}/logexport/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-email': node.auth.email, 'x-auth-key': node.auth.key },
    body: JSON.stringify({ name: 'to-the-receiver', destination_conf: destination, enabled: true, max_upload_records: batchRecords, output_options: { field_names: ['RayID'] } }),
  });
  const body = (await response.json()) as { result: { id: number } };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.result.id;
}

async function servedIngest(served: ServedNode, node: TailNode, rayIds: readonly string[]): Promise<void> {
  const response = await fetch(`${served.url}/ingest/zones/${node.zones['stop.example']}/http_requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', 'x-auth-email': node.auth.email, 'x-auth-key': node.auth.key },
    body: rayIds.map((id) => JSON.stringify(event(id))).join('\n'),
  });
  assert.equal(response.status, 200, await response.text());
}

async function jobStatus(served: ServedNode, node: TailNode, jobId: number): Promise<{ last_error: string | null }> {
  const response = await fetch(`${served.url}/client/v4/zones/${node.zones['stop.example']}/logexport/jobs/${jobId}`, {
    headers: { 'x-auth-email': node.auth.email, 'x-auth-key': node.auth.key },
  });
  return ((await response.json()) as { result: { last_error: string | null } }).result;
}

describe('stopping a served node (SIGTERM)', () => {
  const dirs: string[] = [];
  after(() => {
    killAllServed();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A data directory with a user and a zone, a receiver, and settings that let the node deliver there; the stop deadline is far longer than a test may take. */
  async function prepare(): Promise<{ node: TailNode; receiver: Receiver; env: Record<string, string> }> {
    const node = await prepareTailNode(['stop.example'], []);
    dirs.push(node.dataDir);
    return { node, receiver: await startReceiver(), env: { LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS: 'true', LOGEXPORT_SHUTDOWN_TIMEOUT: '10m' } };
  }

  it('gives up at once on the batch of a failing destination, says so, and delivers it after the next start', async () => {
    const { node, receiver, env } = await prepare();
    try {
      let served = await serveNode(node.dataDir, env);
      const jobId = await servedJob(served, node, receiver.url);
      receiver.fallback = { kind: 'status', status: 503 };
      const failing = rayIds('failing', 0, batchRecords);
      await servedIngest(served, node, failing);
      await waitFor('the job to report its failing destination', async () => ((await jobStatus(served, node, jobId)).last_error !== null ? true : undefined), 60_000, 100);

      const exited = await served.kill('SIGTERM');
      assert.equal(exited.code, 0, served.stderr());
      const lines = served.stdout();
      assert.match(lines, /Received SIGTERM; stopping\./);
      assert.match(lines, /Stopping: Job \d+ \(\\"to-the-receiver\\"\) gives up its batch of 1000 records, as its destination is failing \(.*503.*\); the batch stays queued and is delivered after the next start\./);
      assert.deepEqual(receiver.deliveredRayIds(), []);

      receiver.fallback = { kind: 'status', status: 200 };
      served = await serveNode(node.dataDir, env);
      await waitFor('the batch after the restart', () => (receiver.deliveredRayIds().length >= batchRecords ? true : undefined), 60_000, 100);
      assert.deepEqual(receiver.deliveredRayIds(), failing);
      assert.equal((await served.kill('SIGTERM')).code, 0);
    } finally {
      await receiver.close();
    }
  });

  it('says which delivery it waits for, and waits for it to finish', async () => {
    const { node, receiver, env } = await prepare();
    try {
      const served = await serveNode(node.dataDir, env);
      await servedJob(served, node, receiver.url);
      // The batch arrives and is held until the stop has said what it waits for.
      receiver.fallback = { kind: 'held' };
      const slow = rayIds('slow', 0, batchRecords);
      await servedIngest(served, node, slow);
      await waitFor('the delivery under way', () => (receiver.heldCount() > 0 ? true : undefined), 60_000, 50);
      served.child.kill('SIGTERM');
      await waitFor('the line saying what the stop waits for', () => (/Stopping: Job \d+ .* is delivering a batch of 1000 records; the stop waits for it at most \d+ s more\./.test(served.stdout()) ? true : undefined), 60_000, 50);
      receiver.releaseHeld(200);
      assert.equal((await served.exited).code, 0, served.stderr());
      assert.deepEqual(receiver.deliveredRayIds(), slow);
    } finally {
      await receiver.close();
    }
  });
});
