/**
 * Instant Logs at ingest: with nobody watching, a request's task is exactly what it was without Instant Logs
 * (the snapshot's own plan and key); with a session watching, its filter, sampler and formatter run in the
 * task, at most `limit` records per request leave it, and what it kept goes out after the request is done.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { defaultFilterLimits } from '../../src/domain/filters/parse-filter.ts';
import { Ingestor, type LiveTaps } from '../../src/ingest/ingest.ts';
import { PlanCache, runIngestTask, type IngestTask, type PlanSource } from '../../src/ingest/ingest-task.ts';
import { compileLiveTap, LiveCollector, type LiveTapOutput, type LiveTapSpec } from '../../src/ingest/live-tap.ts';
import type { IngestWorkers } from '../../src/ingest/workers/ingest-workers.ts';
import type { ZoneSnapshots } from '../../src/ingest/zone-snapshots.ts';
import type { EventQueue } from '../../src/queue/queue.ts';

const plan: PlanSource = { rules: [], jobs: [], settings: { filterLimits: defaultFilterLimits, gzipLevel: 1 }, retain: false };

function harness(live: LiveTaps) {
  const tasks: IngestTask[] = [];
  const cache = new PlanCache();
  const workers = { run: async (task: IngestTask) => (tasks.push(task), runIngestTask(task, cache)) } as unknown as IngestWorkers;
  const snapshots = { get: async () => ({ planKey: 'zone/http_requests/1', plan }) } as unknown as ZoneSnapshots;
  const ingestor = new Ingestor({} as EventQueue, snapshots, workers, () => {}, live);
  const ingest = (lines: readonly object[]) =>
    ingestor.ingest('zone', httpRequests, { bytes: Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), encoding: 'identity', limitBytes: 1 << 20 });
  return { tasks, ingest };
}

const spec = (over: Partial<LiveTapSpec> = {}): LiveTapSpec => ({
  sessionId: 's1',
  fieldNames: ['RayID', 'EdgeResponseStatus'],
  filter: JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'geq', value: 500 } }),
  sample: 1,
  limit: 1000,
  ...over,
});

describe('Instant Logs at ingest', () => {
  it('leaves a request’s task untouched when nobody watches the zone', async () => {
    let delivered = 0;
    const h = harness({ watching: () => undefined, deliver: () => (delivered += 1) });
    // The harness's zone has no job: the event is checked and dropped, and the result says so.
    assert.deepEqual(await h.ingest([{ RayID: 'a', EdgeResponseStatus: 500 }]), { accepted: 1, droppedNoJob: 1 });
    assert.equal(h.tasks[0]?.planKey, 'zone/http_requests/1');
    assert.equal(h.tasks[0]?.plan, plan);
    assert.equal(delivered, 0);
  });

  it('runs a watching session’s filter and formatter in the task and hands over what it kept', async () => {
    const outputs: LiveTapOutput[][] = [];
    const h = harness({ watching: () => ({ key: 's1', specs: [spec()] }), deliver: (_zone, o) => outputs.push([...o]) });
    await h.ingest([
      { RayID: 'a', EdgeResponseStatus: 500 },
      { RayID: 'b', EdgeResponseStatus: 200 },
      { RayID: 'c', EdgeResponseStatus: 503 },
    ]);
    assert.equal(h.tasks[0]?.planKey, 'zone/http_requests/1/live/s1');
    assert.deepEqual(outputs, [
      [{ sessionId: 's1', events: 3, filteredOut: 1, sampledOut: 0, lines: ['{"RayID":"a","EdgeResponseStatus":500}', '{"RayID":"c","EdgeResponseStatus":503}'], overflow: 0 }],
    ]);
  });

  it('hands no records of a refused request to a session', async () => {
    const outputs: unknown[] = [];
    const h = harness({ watching: () => ({ key: 's1', specs: [spec()] }), deliver: (_zone, o) => outputs.push(o) });
    await assert.rejects(h.ingest([{ RayID: 'a', EdgeResponseStatus: 500 }, { RayID: 'b', EdgeResponseStatus: 'x' }]));
    assert.deepEqual(outputs, []);
  });

  it('formats at most `limit` records per request and counts the rest as overflow', () => {
    const tap = compileLiveTap(spec({ filter: null, limit: 2 }), httpRequests, defaultFilterLimits);
    assert.ok(tap.ok);
    const collector = new LiveCollector([tap.value]);
    for (const id of ['a', 'b', 'c', 'd']) collector.add({ RayID: id, EdgeResponseStatus: 200 });
    const [out] = collector.outputs();
    assert.deepEqual(out?.lines, ['{"RayID":"a","EdgeResponseStatus":200}', '{"RayID":"b","EdgeResponseStatus":200}']);
    assert.equal(out?.overflow, 2);
  });
});
