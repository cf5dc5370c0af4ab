/**
 * The retention writer on a real embedded queue: it appends each chunk's frame to a hot segment and
 * commits; and a range it wrote but could not commit (the node died) that a compaction took meanwhile is
 * committed after the restart, not written again — so its events are retained once.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../../src/core/clock.ts';
import { encodeChunk } from '../../src/ingest/chunk-format.ts';
import { RetainedSection } from '../../src/ingest/retained-text.ts';
import { openEmbeddedQueue } from '../../src/queue/embedded/embedded-queue.ts';
import type { EventQueue } from '../../src/queue/queue.ts';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';
import { RetentionWriter, retentionConsumer, retentionStreamOf, type WrittenHotSegment } from '../../src/retention/retention-writer.ts';
import { SegmentEngine } from '../../src/retention/segment-engine.ts';
import { hotAt, recordingLogger, retainedRayIds, testCompactor } from './support/hot-segments.ts';

const zone = '9'.repeat(32);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-writer-'));
const engine = new SegmentEngine();
after(() => {
  engine.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function chunkOf(tag: string, count: number) {
  const section = new RetainedSection(hotAt);
  for (let i = 0; i < count; i++) section.add({ RayID: `${tag}${i}` }, undefined, 0, 0, false);
  return { payload: encodeChunk(count, [section.take()], 1), count };
}

/** The queue, with every commit of its retention consumer failing (the node dies before it commits). */
function failingCommits(queue: EventQueue): EventQueue {
  return new Proxy(queue, {
    get(target, property, receiver) {
      if (property !== 'openConsumer') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<EventQueue['openConsumer']>) => {
        const consumer = await target.openConsumer(...args);
        return { ...consumer, fetch: consumer.fetch.bind(consumer), saveInflight: consumer.saveInflight.bind(consumer), loadInflight: consumer.loadInflight.bind(consumer), readChunks: consumer.readChunks.bind(consumer), heartbeat: consumer.heartbeat.bind(consumer), close: consumer.close.bind(consumer), commit: () => Promise.reject(new Error('the node died before it committed')) };
      };
    },
  });
}

describe('the retention writer', () => {
  it('commits a range a compaction took before the node could, without writing it again', async () => {
    const segments = new LocalSegmentStore(path.join(root, 'retained'));
    const workDir = path.join(root, 'retained', '.work');
    const queue = await openEmbeddedQueue({ path: path.join(root, 'queue.db'), replayWindowMs: 600_000 });
    await queue.resetConsumer(retentionStreamOf(zone), retentionConsumer);
    await queue.append(retentionStreamOf(zone), [chunkOf('a', 40), chunkOf('b', 60)]);
    const deps = { segments, workDir, clock: systemClock, log: recordingLogger(), flushMs: 10 };

    // The first writer stores its hot segment, and dies before its commit.
    const written: WrittenHotSegment[] = [];
    const first = new RetentionWriter(zone, { ...deps, queue: failingCommits(queue), onWritten: (w) => written.push(w) });
    first.start();
    while ((await segments.list(`${zone}/`)).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await first.stop('abort');
    assert.equal(written.length, 0);
    const source = { segments, engine, workDir };
    assert.equal((await retainedRayIds(source, zone)).length, 100);

    // A compaction takes the hot segment meanwhile.
    await testCompactor(segments, workDir).compactNow();
    assert.deepEqual((await segments.list(`${zone}/`)).map((e) => e.key.slice(e.key.lastIndexOf('.'))).sort(), ['.json', '.parquet']);

    // The next writer finds the range recorded, sees the compaction holds it, and only commits.
    const second = new RetentionWriter(zone, { ...deps, queue, onWritten: (w) => written.push(w) });
    second.start();
    while (written.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await second.stop('drain');
    assert.equal(written[0]?.events, 100);
    assert.equal((await segments.list(`${zone}/`)).filter((e) => e.key.endsWith('.ndjson.zst')).length, 0, 'the range was not written again');
    const ids = await retainedRayIds(source, zone);
    assert.equal(ids.length, 100);
    assert.equal(new Set(ids).size, 100);
    // Committed: a writer started now has nothing left to write.
    const consumer = await queue.openConsumer(retentionStreamOf(zone), retentionConsumer);
    assert.equal(await consumer.loadInflight(), undefined);
    assert.deepEqual(await consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 0 }), []);
    await consumer.close();
    await queue.close();
  });
});
