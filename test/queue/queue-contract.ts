/**
 * The queue contract: what ingest and the job runners rely on, run over every EventQueue implementation
 * (embedded.test.ts; a JetStream test file calls `describeQueueContract` the same way).
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rangeIdOf } from '../../src/queue/range-id.ts';
import type { BatchSegment, ChunkInput, EventQueue, InflightBatch, QueueChunk, QueueConsumer, StreamKey } from '../../src/queue/queue.ts';

/**
 * Guarantees that an implementation may declare weaker than the contract's own. Each defaults to the
 * full guarantee, so an implementation that declares nothing is held to all of it.
 */
export interface QueueCapabilities {
  /**
   * A restart (a new queue object on the same storage, see `reopen`) keeps the recorded in-flight batch
   * and the position inside a partly committed chunk. A consumer shared by several nodes (JetStream)
   * does not: whatever the old process had not committed is handed out again whole, maybe to another
   * node, and the in-flight record stays with the process that wrote it. A new consumer object in the
   * same process still resumes exactly either way.
   */
  readonly resumesExactlyAfterRestart: boolean;
}

const fullGuarantees: QueueCapabilities = { resumesExactlyAfterRestart: true };

/** A queue to test, fresh and empty for each case. */
export interface QueueUnderTest {
  readonly queue: EventQueue;
  /**
   * Closes the current queue object (if still open) and opens a new one on the same storage, as a restart
   * does. Without it, the restart cases only open new consumer objects.
   */
  readonly reopen?: () => Promise<EventQueue>;
  /** Closes whichever queue object is current and removes the storage. */
  readonly dispose: () => Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A chunk of `count` NDJSON lines whose RayIDs start with `tag`; payload is a plain Uint8Array. */
export function chunkOf(tag: string, count: number, padTo = 0): ChunkInput {
  let text = '';
  for (let i = 0; i < count; i++) {
    const line = `{"RayID":"${tag}-${i}"`;
    const pad = Math.max(0, padTo - line.length - 3);
    text += `${line}${pad > 0 ? `,"p":"${'x'.repeat(pad)}"` : ''}}\n`;
  }
  return { payload: encoder.encode(text), count };
}

/** The lines of a chunk that were not yet committed (from `firstRecord` on). */
export function openRecords(chunk: QueueChunk): string[] {
  return decoder.decode(chunk.payload).split('\n').slice(0, chunk.count).slice(chunk.firstRecord);
}

/** A batch of the given records: `[chunk, from, to]` for each part, with times from the chunks. */
export function batchOf(chunks: readonly QueueChunk[], parts: readonly (readonly [QueueChunk, number, number])[]): InflightBatch {
  const segments: BatchSegment[] = parts.map(([chunk, from, to]) => ({ seq: chunk.seq, from, to }));
  const times = parts.map(([chunk]) => chunk.appendedAtMs);
  assert.ok(chunks.length > 0);
  return { rangeId: rangeIdOf(segments), segments, firstAppendMs: Math.min(...times), lastAppendMs: Math.max(...times) };
}

/** Everything the consumer hands out until a fetch comes back empty. */
export async function drain(consumer: QueueConsumer, maxWaitMs = 50): Promise<QueueChunk[]> {
  const all: QueueChunk[] = [];
  for (;;) {
    const chunks = await consumer.fetch({ maxChunks: 1000, maxBytes: 64 * 1024 * 1024, maxWaitMs });
    if (chunks.length === 0) return all;
    all.push(...chunks);
  }
}

function bytesOf(chunk: ChunkInput | QueueChunk): string {
  return Buffer.from(chunk.payload).toString('hex');
}

/**
 * Registers the contract's cases for one implementation; `open` gives a fresh queue for each case, and
 * `capabilities` names the guarantees it declares weaker (none by default).
 */
export function describeQueueContract(name: string, open: () => Promise<QueueUnderTest>, capabilities: QueueCapabilities = fullGuarantees): void {
  const exact = capabilities.resumesExactlyAfterRestart;
  describe(`queue contract on ${name}`, () => {
    let subject: QueueUnderTest;
    let queue: EventQueue;
    // Zone ids are unique per case so implementations on shared servers do not see each other's streams.
    let stream: StreamKey;

    beforeEach(async () => {
      subject = await open();
      queue = subject.queue;
      stream = { zoneId: randomBytes(16).toString('hex'), dataset: 'http_requests' };
    });
    afterEach(async () => subject.dispose());

    /** A restart: a new queue on the same storage where the implementation can, and a new consumer object. */
    async function restart(consumer: QueueConsumer, name: string): Promise<QueueConsumer> {
      await consumer.close();
      if (subject.reopen !== undefined) queue = await subject.reopen();
      return queue.openConsumer(stream, name);
    }

    it('append then fetch returns the payload and count in order', async () => {
      await queue.resetConsumer(stream, 'job-1');
      const first = [chunkOf('a', 3), chunkOf('b', 1), chunkOf('c', 5)];
      const second = [chunkOf('d', 2)];
      await queue.append(stream, first);
      await queue.append(stream, second);
      const consumer = await queue.openConsumer(stream, 'job-1');
      const chunks = await drain(consumer);
      assert.deepEqual(chunks.map(bytesOf), [...first, ...second].map(bytesOf));
      assert.deepEqual(chunks.map((c) => c.count), [3, 1, 5, 2]);
      assert.deepEqual(chunks.map((c) => c.firstRecord), [0, 0, 0, 0]);
      for (let i = 1; i < chunks.length; i++) assert.ok(chunks[i]!.seq > chunks[i - 1]!.seq, 'seq increases with every append');
      for (const chunk of chunks) assert.ok(Number.isSafeInteger(chunk.appendedAtMs) && chunk.appendedAtMs > 0);
      await consumer.heartbeat();
    });

    it('streams of different zones and datasets are separate', async () => {
      const otherZone: StreamKey = { zoneId: randomBytes(16).toString('hex'), dataset: 'http_requests' };
      const otherDataset: StreamKey = { zoneId: stream.zoneId, dataset: 'other_events' };
      for (const key of [stream, otherZone, otherDataset]) await queue.resetConsumer(key, 'job');
      await queue.append(stream, [chunkOf('mine', 1)]);
      await queue.append(otherZone, [chunkOf('other-zone', 2)]);
      await queue.append(otherDataset, [chunkOf('other-dataset', 3)]);
      const seen = async (key: StreamKey): Promise<string[]> => (await drain(await queue.openConsumer(key, 'job'))).flatMap(openRecords);
      assert.deepEqual(await seen(stream), ['{"RayID":"mine-0"}']);
      assert.deepEqual(await seen(otherZone), ['{"RayID":"other-zone-0"}', '{"RayID":"other-zone-1"}']);
      assert.deepEqual((await seen(otherDataset)).length, 3);
    });

    it('a consumer reset after appends sees only later appends', async () => {
      await queue.append(stream, [chunkOf('before-creation', 1)]);
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('after-creation', 1)]);
      await queue.append(stream, [chunkOf('unread', 1)]);
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('after-reset', 1)]);
      const records = (await drain(await queue.openConsumer(stream, 'job'))).flatMap(openRecords);
      assert.deepEqual(records, ['{"RayID":"after-reset-0"}']);
    });

    it('fetch waits and wakes on a later append', async () => {
      await queue.resetConsumer(stream, 'job');
      const consumer = await queue.openConsumer(stream, 'job');
      const started = performance.now();
      const fetching = consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 10_000 });
      setTimeout(() => void queue.append(stream, [chunkOf('late', 1)]), 50);
      const chunks = await fetching;
      assert.deepEqual(chunks.flatMap(openRecords), ['{"RayID":"late-0"}']);
      assert.ok(performance.now() - started < 5_000, 'the append woke the fetch long before maxWaitMs');
    });

    it('fetch returns [] after maxWaitMs with nothing to hand out', async () => {
      await queue.resetConsumer(stream, 'job');
      const consumer = await queue.openConsumer(stream, 'job');
      const started = performance.now();
      assert.deepEqual(await consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 200 }), []);
      assert.ok(performance.now() - started >= 150, 'the fetch waited');
    });

    it('fetch returns [] when its signal aborts', async () => {
      await queue.resetConsumer(stream, 'job');
      const consumer = await queue.openConsumer(stream, 'job');
      const controller = new AbortController();
      const started = performance.now();
      setTimeout(() => controller.abort(), 50);
      assert.deepEqual(await consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 10_000, signal: controller.signal }), []);
      assert.ok(performance.now() - started < 5_000);
    });

    it('maxChunks and maxBytes are respected, and one chunk is handed out even when it is bigger than maxBytes', async () => {
      await queue.resetConsumer(stream, 'job');
      const chunks = [1, 2, 3, 4, 5, 6].map((i) => chunkOf(`c${i}`, 10, 100));
      const size = chunks[0]!.payload.byteLength;
      await queue.append(stream, chunks);
      const consumer = await queue.openConsumer(stream, 'job');
      const byCount = await consumer.fetch({ maxChunks: 2, maxBytes: 1 << 20, maxWaitMs: 0 });
      assert.equal(byCount.length, 2);
      const byBytes = await consumer.fetch({ maxChunks: 100, maxBytes: size * 2 + size / 2, maxWaitMs: 0 });
      assert.equal(byBytes.length, 2);
      const oversized = await consumer.fetch({ maxChunks: 100, maxBytes: 10, maxWaitMs: 0 });
      assert.equal(oversized.length, 1);
      const rest = await drain(consumer, 0);
      assert.deepEqual([...byCount, ...byBytes, ...oversized, ...rest].map(bytesOf), chunks.map(bytesOf));
    });

    it('commit then reopen hands out only uncommitted records, with firstRecord where a chunk was partly committed', async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('a', 3), chunkOf('b', 4)]);
      await queue.append(stream, [chunkOf('c', 2)]);
      let consumer = await queue.openConsumer(stream, 'job');
      const chunks = await drain(consumer);
      const [a, b, c] = chunks;
      assert.ok(a && b && c);
      const batch = batchOf(chunks, [[a, 0, 3], [b, 0, 2]]);
      await consumer.saveInflight(batch);
      await consumer.commit(batch);

      consumer = await restart(consumer, 'job');
      const again = await drain(consumer);
      // Without exact resumption the partly committed chunk comes back whole (its first records twice).
      const from = exact ? 2 : 0;
      assert.deepEqual(again.map((chunk) => [chunk.seq, chunk.firstRecord]), [[b.seq, from], [c.seq, 0]]);
      assert.deepEqual(again.flatMap(openRecords), [
        ...(exact ? [] : ['{"RayID":"b-0"}', '{"RayID":"b-1"}']),
        '{"RayID":"b-2"}',
        '{"RayID":"b-3"}',
        '{"RayID":"c-0"}',
        '{"RayID":"c-1"}',
      ]);

      const rest = batchOf(again, [[again[0]!, from, 4], [again[1]!, 0, 2]]);
      await consumer.saveInflight(rest);
      await consumer.commit(rest);
      consumer = await restart(consumer, 'job');
      assert.deepEqual(await drain(consumer), []);
    });

    it('saveInflight and loadInflight round-trip, also after a restart, and commit clears it', async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('a', 2), chunkOf('b', 3)]);
      let consumer = await queue.openConsumer(stream, 'job');
      assert.equal(await consumer.loadInflight(), undefined);
      const chunks = await drain(consumer);
      let batch = batchOf(chunks, [[chunks[0]!, 0, 2], [chunks[1]!, 0, 1]]);
      await consumer.saveInflight(batch);
      assert.deepEqual(await consumer.loadInflight(), batch);
      consumer = await restart(consumer, 'job');
      if (!exact) {
        assert.equal(await consumer.loadInflight(), undefined, 'the in-flight record stays with the process that wrote it');
        const again = await drain(consumer);
        batch = batchOf(again, [[again[0]!, 0, 2], [again[1]!, 0, 1]]);
        await consumer.saveInflight(batch);
      }
      assert.deepEqual(await consumer.loadInflight(), batch);
      await consumer.commit(batch);
      assert.equal(await consumer.loadInflight(), undefined);
      consumer = await restart(consumer, 'job');
      assert.equal(await consumer.loadInflight(), undefined);
    });

    it('after a restart the in-flight batch is re-read, committed, and fetch continues right after it', async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('a', 2), chunkOf('b', 3), chunkOf('c', 1)]);
      let consumer = await queue.openConsumer(stream, 'job');
      const chunks = await drain(consumer);
      const batch = batchOf(chunks, [[chunks[0]!, 0, 2], [chunks[1]!, 0, 1]]);
      await consumer.saveInflight(batch);

      consumer = await restart(consumer, 'job');
      const inflight = await consumer.loadInflight();
      if (!exact) {
        // Nothing was committed: every chunk is handed out again, whole, to be sent as new batches.
        assert.equal(inflight, undefined);
        const again = await drain(consumer);
        assert.deepEqual(again.map(bytesOf), chunks.map(bytesOf));
        assert.deepEqual(again.map((c) => c.firstRecord), [0, 0, 0]);
        return;
      }
      assert.ok(inflight);
      const reread = await consumer.readChunks(inflight.segments.map((s) => s.seq));
      assert.deepEqual(reread.map(bytesOf), chunks.slice(0, 2).map(bytesOf));
      await consumer.commit(inflight);
      const next = await drain(consumer);
      assert.deepEqual(next.flatMap(openRecords), ['{"RayID":"b-1"}', '{"RayID":"b-2"}', '{"RayID":"c-0"}']);
    });

    it('readChunks returns exact payloads, whole, in the order asked', async () => {
      await queue.resetConsumer(stream, 'job');
      const input = [chunkOf('a', 2), chunkOf('b', 3, 300), chunkOf('c', 1)];
      await queue.append(stream, input);
      const consumer = await queue.openConsumer(stream, 'job');
      const chunks = await drain(consumer);
      const batch = batchOf(chunks, [[chunks[0]!, 0, 2], [chunks[1]!, 0, 1]]);
      await consumer.commit(batch);
      const reread = await consumer.readChunks([chunks[2]!.seq, chunks[1]!.seq]);
      assert.deepEqual(reread.map(bytesOf), [input[2]!, input[1]!].map(bytesOf));
      assert.deepEqual(reread.map((c) => [c.seq, c.count, c.firstRecord, c.appendedAtMs]), [chunks[2]!, chunks[1]!].map((c) => [c.seq, c.count, 0, c.appendedAtMs]));
    });

    it('two consumers on one stream each see every chunk and commit independently', async () => {
      await queue.resetConsumer(stream, 'job-1');
      await queue.resetConsumer(stream, 'job-2');
      const input = [chunkOf('a', 1), chunkOf('b', 2)];
      await queue.append(stream, input);
      let one = await queue.openConsumer(stream, 'job-1');
      let two = await queue.openConsumer(stream, 'job-2');
      const seenByOne = await drain(one);
      const seenByTwo = await drain(two);
      assert.deepEqual(seenByOne.map(bytesOf), input.map(bytesOf));
      assert.deepEqual(seenByTwo.map(bytesOf), input.map(bytesOf));
      await one.commit(batchOf(seenByOne, [[seenByOne[0]!, 0, 1], [seenByOne[1]!, 0, 2]]));
      await one.close();
      await two.close();
      one = await queue.openConsumer(stream, 'job-1');
      two = await queue.openConsumer(stream, 'job-2');
      assert.deepEqual(await drain(one), []);
      assert.deepEqual((await drain(two)).map(bytesOf), input.map(bytesOf));
    });

    it('deleteConsumer removes the consumer, and a reset creates it afresh at the end of the stream', async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('old', 1)]);
      await queue.deleteConsumer(stream, 'job');
      await assert.rejects(queue.openConsumer(stream, 'job'));
      await queue.deleteConsumer(stream, 'job');
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('new', 1)]);
      const records = (await drain(await queue.openConsumer(stream, 'job'))).flatMap(openRecords);
      assert.deepEqual(records, ['{"RayID":"new-0"}']);
    });

    it('pendingBytes rises on append and falls when every consumer commits', async () => {
      await queue.resetConsumer(stream, 'job-1');
      await queue.resetConsumer(stream, 'job-2');
      const before = queue.pendingBytes();
      const input = [chunkOf('a', 4, 200), chunkOf('b', 4, 200)];
      const total = input.reduce((sum, c) => sum + c.payload.byteLength, 0);
      await queue.append(stream, input);
      assert.ok(queue.pendingBytes() >= before + total, 'appended bytes are pending');
      const one = await queue.openConsumer(stream, 'job-1');
      const two = await queue.openConsumer(stream, 'job-2');
      const chunks = await drain(one);
      await drain(two);
      await one.commit(batchOf(chunks, [[chunks[0]!, 0, 4], [chunks[1]!, 0, 4]]));
      assert.ok(queue.pendingBytes() >= before + total, 'bytes stay pending while one consumer has not committed them');
      await two.commit(batchOf(chunks, [[chunks[0]!, 0, 4], [chunks[1]!, 0, 2]]));
      assert.ok(queue.pendingBytes() > before, 'a chunk committed in part is still pending');
      await two.commit(batchOf(chunks, [[chunks[1]!, 2, 4]]));
      assert.ok(queue.pendingBytes() <= before, 'nothing is pending once every consumer has committed');
    });

    it('a source append stores chunks on several streams and its checkpoint together, and a checkpoint alone', async () => {
      const other: StreamKey = { zoneId: randomBytes(16).toString('hex'), dataset: stream.dataset };
      await queue.resetConsumer(stream, 'job');
      await queue.resetConsumer(other, 'job');
      await queue.appendFromSource(
        [
          { stream, chunks: [chunkOf('s1', 2)] },
          { stream: other, chunks: [chunkOf('o1', 1)] },
        ],
        { source: 'native:/var/log/a.log', state: '{"offset":10}' },
        'file1:0-10',
      );
      await queue.appendFromSource([], { source: 'caddy:/var/log/b.log', state: '{"offset":0}' }, 'file2:0-0');
      await queue.appendFromSource([], { source: 'native:/var/log/a.log', state: '{"offset":20}' }, 'file1:10-20');
      const checkpoints = [...(await queue.sourceCheckpoints())].sort((a, b) => a.source.localeCompare(b.source));
      assert.deepEqual(checkpoints, [
        { source: 'caddy:/var/log/b.log', state: '{"offset":0}' },
        { source: 'native:/var/log/a.log', state: '{"offset":20}' },
      ]);
      const consumer = await queue.openConsumer(stream, 'job');
      assert.deepEqual((await consumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 1000 })).flatMap(openRecords), ['{"RayID":"s1-0"}', '{"RayID":"s1-1"}']);
      await consumer.close();
      const otherConsumer = await queue.openConsumer(other, 'job');
      assert.deepEqual((await otherConsumer.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 1000 })).flatMap(openRecords), ['{"RayID":"o1-0"}']);
      await otherConsumer.close();
    });

    it('closing the queue ends a waiting fetch with [] and refuses later appends', async () => {
      await queue.resetConsumer(stream, 'job');
      const consumer = await queue.openConsumer(stream, 'job');
      const fetching = consumer.fetch({ maxChunks: 1, maxBytes: 1 << 20, maxWaitMs: 10_000 });
      const started = performance.now();
      await queue.close();
      assert.deepEqual(await fetching, []);
      assert.ok(performance.now() - started < 5_000);
      await assert.rejects(queue.append(stream, [chunkOf('late', 1)]), /closed/);
    });

    it("a closed consumer's fetch returns [], also one already waiting", async () => {
      await queue.resetConsumer(stream, 'job');
      await queue.append(stream, [chunkOf('a', 1)]);
      const waiting = await queue.openConsumer(stream, 'job');
      await drain(waiting, 0);
      const started = performance.now();
      const fetching = waiting.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 10_000 });
      setTimeout(() => void waiting.close(), 50);
      assert.deepEqual(await fetching, []);
      assert.ok(performance.now() - started < 5_000);

      const closed = await queue.openConsumer(stream, 'job');
      await closed.close();
      assert.deepEqual(await closed.fetch({ maxChunks: 10, maxBytes: 1 << 20, maxWaitMs: 1000 }), []);
    });
  });
}
