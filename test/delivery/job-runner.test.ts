/**
 * The job runner on its own, with a real embedded queue and a file destination whose file system a test
 * can break: a full disk is retried until it has room again, with nothing lost; a batch delivered but not
 * committed before the runner died is re-sent first under the same name, overwriting itself; and a
 * drained stop delivers what it holds.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../../src/core/clock.ts';
import type { FileOps } from '../../src/destinations/file.ts';
import type { RetryPolicy } from '../../src/delivery/deliver-with-retry.ts';
import { PlanCache, runIngestTask } from '../../src/ingest/ingest-task.ts';
import { JobCounters, type StoredCounters } from '../../src/delivery/job-counters.ts';
import { compileJobPlan, type JobPlan } from '../../src/ingest/job-plan.ts';
import type { Logger } from '../../src/core/logger.ts';
import { consumerNameOf, JobRunner, streamOf, type RunnerDeps } from '../../src/delivery/job-runner.ts';
import { openEmbeddedQueue, type EmbeddedQueue } from '../../src/queue/embedded/embedded-queue.ts';
import type { EventQueue, QueueConsumer } from '../../src/queue/queue.ts';
import type { Job, JobStatus, Store } from '../../src/store/store.ts';
import { readObjects, waitFor } from '../e2e/support/data-plane.ts';
import { firstLayoutPayload } from '../support/first-layout-chunk.ts';

const zoneId = 'a'.repeat(32);
const retryFast: RetryPolicy = { baseDelayMs: 5, maxDelayMs: 20, permanentDelayMs: 50, jitter: 0, random: () => 0.5 };
const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

function jobOf(id: number, dir: string): Job {
  return {
    id,
    zoneId,
    dataset: 'http_requests',
    kind: '',
    enabled: true,
    name: null,
    destinationConf: `file:///${dir}`,
    filter: null,
    outputOptions: JSON.stringify({ field_names: ['RayID'] }),
    logpullOptions: null,
    frequency: null,
    maxUploadBytes: null,
    maxUploadRecords: null,
    maxUploadIntervalSeconds: null,
    lastComplete: null,
    lastError: null,
    errorMessage: null,
    failingSince: null,
    createdAt: new Date(0).toISOString(),
    updatedAt: new Date(0).toISOString(),
  };
}

/** The job's plan with batches of at most `maxRecords` records that close 50 ms after they open. */
function planOf(job: Job, maxRecords: number): JobPlan {
  const compiled = compileJobPlan(job, { maxOperators: 30, maxBytes: 1000 });
  if (!compiled.ok) assert.fail(JSON.stringify(compiled.error));
  return { ...compiled.value, batch: { maxBytes: 5_000_000, maxRecords, maxIntervalMs: 50 } };
}

/** The job statuses the runner records, kept in memory (the only store call a runner makes). */
function statusStore(): { store: Store; statuses: JobStatus[] } {
  const statuses: JobStatus[] = [];
  const partial: Pick<Store, 'setJobStatus'> = {
    async setJobStatus(_jobId, status) {
      statuses.push(status);
    },
  };
  return { store: partial as Store, statuses };
}

/** Appends events for `job` as ingest would (one request, one or more chunks). */
async function ingestFor(queue: EventQueue, job: Job, rayIds: readonly string[]): Promise<void> {
  const result = runIngestTask(
    {
      dataset: 'http_requests',
      body: Buffer.from(rayIds.map((RayID) => JSON.stringify({ RayID })).join('\n')),
      encoding: 'identity',
      limitBytes: 1 << 24,
      planKey: `job-${job.id}`,
      plan: { rules: [], jobs: [job], retain: false, settings: { filterLimits: { maxOperators: 30, maxBytes: 1000 }, gzipLevel: 1 } },
    },
    new PlanCache(),
  );
  if (!result.ok) assert.fail(JSON.stringify(result.details));
  await queue.append(streamOf(job), result.chunks);
}

/** The RayIDs delivered under the export root's `dir`, object by object. */
function delivered(root: string, dir: string): string[][] {
  return readObjects(root, dir).map((o) => o.lines.map((l) => String((JSON.parse(l) as { RayID: unknown }).RayID)));
}

describe('the job runner', () => {
  let tmp: string;
  let exportRoot: string;
  let queue: EmbeddedQueue;

  beforeEach(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-runner-'));
    exportRoot = path.join(tmp, 'exports');
    queue = await openEmbeddedQueue({ path: path.join(tmp, 'queue.db'), replayWindowMs: 0 });
  });
  afterEach(async () => {
    await queue.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  function deps(overrides: Partial<RunnerDeps> & { fileOps?: FileOps } = {}): RunnerDeps & { counters: JobCounters } {
    const { fileOps, ...rest } = overrides;
    return {
      queue,
      store: statusStore().store,
      clock: systemClock,
      log: silent,
      counters: new JobCounters(),
      destinations: { exportRoot, allowPrivate: false, fileOps },
      gzipLevel: 1,
      disableAfterMs: 3_600_000,
      retryPolicy: retryFast,
      onDisabled: () => undefined,
      persistCounters: () => Promise.resolve(),
      countedBefore: () => Promise.resolve(false),
      ...rest,
    } as RunnerDeps & { counters: JobCounters };
  }

  it('retries a full disk (ENOSPC) at a file destination until there is room, losing nothing', async () => {
    const job = jobOf(1, 'full');
    await queue.resetConsumer(streamOf(job), consumerNameOf(job));
    let refusals = 3;
    const fullDisk: FileOps = {
      ...fsPromises,
      open: (async (file: fs.PathLike, flags?: string | number, mode?: fs.Mode) => {
        if (String(file).endsWith('.tmp') && refusals > 0) {
          refusals -= 1;
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        return fsPromises.open(file, flags, mode);
      }) as FileOps['open'],
    };
    const { store, statuses } = statusStore();
    const d = deps({ fileOps: fullDisk, store });
    const runner = new JobRunner(job, planOf(job, 5), d);
    runner.start();
    const ids = Array.from({ length: 12 }, (_, i) => `enospc-${i}`);
    await ingestFor(queue, job, ids);
    await waitFor('every record delivered', () => (delivered(exportRoot, 'full').flat().length >= ids.length ? true : undefined));
    await runner.stop('abort');
    assert.deepEqual(delivered(exportRoot, 'full').flat().sort(), [...ids].sort());
    assert.deepEqual(
      delivered(exportRoot, 'full').map((o) => o.length).sort(),
      [2, 5, 5],
      'three batches, none lost or doubled',
    );
    assert.equal(d.counters.values.failures, 3);
    assert.equal(d.counters.values.delivered_records, 12);
    const failure = statuses.find((s) => s.errorMessage !== undefined && s.errorMessage !== null);
    assert.match(failure?.errorMessage ?? '', /no space left/);
    assert.deepEqual(statuses.at(-1), { lastComplete: statuses.at(-1)?.lastComplete, lastError: null, errorMessage: null, failingSince: null });
    assert.equal(queue.pendingBytes(), 0, 'everything was committed');
  });

  const resendCases = [
    { how: 'record by record', jobId: 2, maxRecords: 4, records: 10 },
    { how: "as the request's text", jobId: 6, maxRecords: 1000, records: 10 },
    { how: "as the request's text compressed at ingest", jobId: 8, maxRecords: 5000, records: 3000 },
  ];
  for (const { how, jobId, maxRecords, records } of resendCases) {
  it(`re-sends a batch taken ${how} that was delivered but not committed under the same name, overwriting it`, async () => {
    const job = jobOf(jobId, `again-${jobId}`);
    await queue.resetConsumer(streamOf(job), consumerNameOf(job));
    // The first runner "dies" between delivering its first batch and committing it.
    const dying: EventQueue = {
      append: (s, c, k) => queue.append(s, c, k),
      appendFromSource: (a, c, b) => queue.appendFromSource(a, c, b),
      sourceCheckpoints: () => queue.sourceCheckpoints(),
      resetConsumer: (s, c) => queue.resetConsumer(s, c),
      deleteConsumer: (s, c) => queue.deleteConsumer(s, c),
      pendingBytes: () => queue.pendingBytes(),
      close: () => queue.close(),
      openConsumer: async (s, c) => {
        const consumer = await queue.openConsumer(s, c);
        const wrapped: QueueConsumer = {
          fetch: (o) => consumer.fetch(o),
          saveInflight: (b) => consumer.saveInflight(b),
          loadInflight: () => consumer.loadInflight(),
          readChunks: (seqs) => consumer.readChunks(seqs),
          heartbeat: () => consumer.heartbeat(),
          close: () => consumer.close(),
          commit: async () => {
            throw new Error('killed before the commit');
          },
        };
        return wrapped;
      },
    };
    const ids = Array.from({ length: records }, (_, i) => `again-${i}-${'x'.repeat(records > 100 ? 60 : 0)}`);
    await ingestFor(queue, job, ids);
    // The counters the store holds: written by the runner before each commit, read again after the restart.
    let stored: StoredCounters | undefined;
    const firstCounters = new JobCounters();
    const first = new JobRunner(
      job,
      planOf(job, maxRecords),
      deps({ queue: dying, counters: firstCounters, persistCounters: async () => void (stored = firstCounters.snapshot(Date.now())) }),
    );
    first.start();
    await waitFor('the first batch delivered', () => (delivered(exportRoot, `again-${jobId}`).length > 0 ? true : undefined));
    await first.stop('abort');
    const [object] = readObjects(exportRoot, `again-${jobId}`);
    assert.deepEqual(delivered(exportRoot, `again-${jobId}`), [ids.slice(0, maxRecords)]);
    const before = fs.statSync(path.join(exportRoot, object?.key ?? '')).mtimeMs;

    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(stored?.counters.received, maxRecords > records ? records : maxRecords, 'the first batch was counted before the commit that never came');
    const secondCounters = new JobCounters(stored);
    const second = new JobRunner(
      job,
      planOf(job, maxRecords),
      deps({ counters: secondCounters, countedBefore: async (rangeId) => stored?.counted_range === rangeId }),
    );
    second.start();
    // Committed, not only delivered: with one batch, every record was delivered before the second runner started.
    await waitFor('every record delivered and committed', () => (queue.pendingBytes() === 0 ? true : undefined));
    await second.stop('abort');
    const objects = readObjects(exportRoot, `again-${jobId}`);
    assert.equal(objects.filter((o) => o.key === object?.key).length, 1);
    assert.ok(fs.statSync(path.join(exportRoot, object?.key ?? '')).mtimeMs > before, 'the object was written again, in place');
    assert.deepEqual(delivered(exportRoot, `again-${jobId}`).flat().sort(), [...ids].sort(), 'every record once: the re-sent batch replaced itself');
    assert.equal(secondCounters.values.received, records, 'the re-sent batch is not received twice');
    assert.equal(secondCounters.values.delivered_records, records, 'nor delivered twice');
  });
  }

  const wholeCases = [
    { text: 'short, stored as it is', jobId: 4, perRequest: 4, pad: 0 },
    { text: 'long, compressed at ingest', jobId: 7, perRequest: 700, pad: 200 },
  ];
  for (const { text, jobId, perRequest, pad } of wholeCases) {
    it(`delivers each request's records whole when their text is ${text}, closing a batch before a request's records that do not fit in it`, async () => {
      const job = jobOf(jobId, `whole-${jobId}`);
      await queue.resetConsumer(streamOf(job), consumerNameOf(job));
      const requests = [0, 1, 2].map((r) => Array.from({ length: perRequest }, (_, i) => `whole-${r}-${i}-${'x'.repeat(pad)}`));
      for (const ids of requests) await ingestFor(queue, job, ids);
      const maxRecords = Math.floor(2.5 * perRequest);
      const plan = { ...planOf(job, maxRecords), batch: { maxBytes: 5_000_000, maxRecords, maxIntervalMs: 200 } };
      const runner = new JobRunner(job, plan, deps());
      runner.start();
      await waitFor('every record delivered', () => (delivered(exportRoot, `whole-${jobId}`).flat().length >= 3 * perRequest ? true : undefined));
      await runner.stop('abort');
      const objects = delivered(exportRoot, `whole-${jobId}`).sort((a, b) => b.length - a.length);
      assert.deepEqual(objects, [[...(requests[0] ?? []), ...(requests[1] ?? [])], requests[2]], 'two requests fill the first batch; the third would not fit');
    });
  }

  it('delivers chunks queued by an earlier version, whose records are not compressed', async () => {
    const job = jobOf(5, 'earlier');
    await queue.resetConsumer(streamOf(job), consumerNameOf(job));
    const record = (id: string) => `${JSON.stringify({ RayID: id })}\n`;
    const payload = firstLayoutPayload(job.id, [record('old-0'), 1, record('old-2'), 2, record('old-4')]);
    await queue.append(streamOf(job), [{ payload, count: 5 }]);
    const d = deps();
    const runner = new JobRunner(job, planOf(job, 1000), d);
    runner.start();
    await waitFor('every record delivered', () => (delivered(exportRoot, 'earlier').flat().length >= 3 ? true : undefined));
    await runner.stop('abort');
    assert.deepEqual(delivered(exportRoot, 'earlier'), [['old-0', 'old-2', 'old-4']]);
    assert.deepEqual([d.counters.values.received, d.counters.values.filtered_out, d.counters.values.sampled_out], [5, 1, 1]);
  });

  it('delivers its open batch when stopped with drain', async () => {
    const job = jobOf(3, 'drain');
    await queue.resetConsumer(streamOf(job), consumerNameOf(job));
    const plan = { ...planOf(job, 1000), batch: { maxBytes: 5_000_000, maxRecords: 1000, maxIntervalMs: 60_000 } };
    const runner = new JobRunner(job, plan, deps());
    runner.start();
    await ingestFor(queue, job, ['open-1', 'open-2']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(delivered(exportRoot, 'drain'), [], 'the batch is still open');
    await runner.stop('drain', Date.now() + 5000);
    assert.deepEqual(delivered(exportRoot, 'drain'), [['open-1', 'open-2']]);
  });
});
