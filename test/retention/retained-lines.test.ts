/** What the retention writer takes from a chunk, how segments are named, and which hour partitions expire. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeChunk, eventStatus, minDeflatedTextBytes, retainedSectionId } from '../../src/ingest/chunk-format.ts';
import { RetainedSection } from '../../src/ingest/retained-text.ts';
import { unzstd } from '../../src/ingest/zstd-frame.ts';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';
import { retainedFrame } from '../../src/retention/retention-writer.ts';
import { expireSegments } from '../../src/retention/retention-expiry.ts';
import { compactedSegmentKey, coversKeyOf, hotSegmentKey, parseSegmentKey } from '../../src/retention/segment-names.ts';
import { hourPartitionOf, hourPartitionStart } from '../../src/retention/segment-store.ts';

/** A chunk as ingest writes it now: the retained section one zstd frame, its events received at `receivedMs`. */
function chunkOf(records: readonly Record<string, unknown>[], receivedMs: number, appendedAtMs = receivedMs + 3) {
  const section = new RetainedSection(receivedMs);
  for (const record of records) section.add(record, undefined, 0, 0, false);
  const payload = encodeChunk(records.length, [section.take()], 1);
  return { seq: 1, appendedAtMs, count: records.length, firstRecord: 0, payload };
}

/** A chunk an earlier version queued: the retained section deflated (when long) or plain, its lines without a receive time. */
function earlierChunkOf(records: readonly string[], appendedAtMs: number) {
  const text = Buffer.from(records.join('\n'));
  const payload = encodeChunk(records.length, [{ jobId: retainedSectionId, statuses: new Uint8Array(records.length).fill(eventStatus.kept), recordLengths: records.map((r) => Buffer.byteLength(r)), delimiterLength: 1, text, level: 1 }], 1);
  return { seq: 1, appendedAtMs, count: records.length, firstRecord: 0, payload };
}

function linesOf(frame: Buffer | undefined): Record<string, unknown>[] {
  return unzstd(frame ?? Buffer.alloc(0)).toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the retained frame of a chunk', () => {
  it("takes a whole chunk's frame as it is, with the receive time ingest gave it", async () => {
    const chunk = chunkOf([{ RayID: 'a', ClientCity: 'Zürich' }, {}, { RayID: 'b', ClientRequestPath: '/x\n{y' }], 1234);
    const frame = await retainedFrame(chunk, 0, 3);
    assert.ok(frame !== undefined);
    assert.equal(frame.receivedMs, 1234);
    assert.equal(frame.events, 3);
    // The very bytes of the chunk: nothing was compressed again.
    assert.ok(Buffer.from(chunk.payload.buffer, chunk.payload.byteOffset, chunk.payload.byteLength).includes(frame.frame));
    assert.deepEqual(linesOf(frame.frame), [
      { _received_ms: 1234, RayID: 'a', ClientCity: 'Zürich' },
      { _received_ms: 1234 },
      { _received_ms: 1234, RayID: 'b', ClientRequestPath: '/x\n{y' },
    ]);
  });

  it('takes only the events asked for from part of a chunk', async () => {
    const records = Array.from({ length: 50 }, (_, i) => ({ RayID: `r${i}` }));
    const frame = await retainedFrame(chunkOf(records, 99), 40, 50);
    assert.deepEqual(linesOf(frame?.frame).map((l) => l.RayID), Array.from({ length: 10 }, (_, i) => `r${40 + i}`));
  });

  it('gives the events of a chunk an earlier version queued the append time as their receive time', async () => {
    const records = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ RayID: `r${i}`, ClientRequestUserAgent: 'x'.repeat(100) }));
    assert.ok(records.join('\n').length >= minDeflatedTextBytes);
    const all = await retainedFrame(earlierChunkOf(records, 5), 0, 2000);
    assert.equal(all?.receivedMs, 5);
    const lines = linesOf(all?.frame);
    assert.equal(lines.length, 2000);
    assert.deepEqual(lines[1999], { _received_ms: 5, RayID: 'r1999', ClientRequestUserAgent: 'x'.repeat(100) });
    const short = await retainedFrame(earlierChunkOf(['{"RayID":"a"}', '{}', '{ }'], 7), 1, 3);
    assert.deepEqual(linesOf(short?.frame), [{ _received_ms: 7 }, { _received_ms: 7 }]);
  });

  it('finds nothing in a chunk queued while the flag was off', async () => {
    const payload = encodeChunk(1, [{ jobId: 7, statuses: new Uint8Array([eventStatus.kept]), recordLengths: [2], delimiterLength: 0, text: Buffer.from('{}') }], 1);
    assert.equal(await retainedFrame({ seq: 1, appendedAtMs: 1, count: 1, firstRecord: 0, payload }, 0, 1), undefined);
  });
});

describe('segment names and partitions', () => {
  const zone = 'a'.repeat(32);
  const first = Date.UTC(2026, 4, 2, 10, 59, 59);
  const last = Date.UTC(2026, 4, 2, 10, 59, 59, 900);

  it('names a hot segment from its zone, hour, receive times and exact range, and reads the times back', () => {
    const key = hotSegmentKey(zone, '5.0-9.100', first, last);
    assert.match(key, new RegExp(`^${zone}/20260502/10/${first}-${last}-[0-9a-f]{12}\\.ndjson\\.zst$`));
    assert.equal(hotSegmentKey(zone, '5.0-9.100', first, last), key);
    assert.notEqual(hotSegmentKey(zone, '5.0-9.99', first, last), key);
    assert.deepEqual(parseSegmentKey(key), { key, tier: 'hot', firstMs: first, lastMs: last });
    assert.equal(hourPartitionStart(hourPartitionOf(first)), Date.UTC(2026, 4, 2, 10));
    assert.equal(hourPartitionStart('nonsense'), undefined);
    assert.equal(hourPartitionStart('20260231/10'), undefined);
  });

  it('names a compacted segment from the hot segments it holds, whatever their order, and its covers list beside it', () => {
    const hot = [hotSegmentKey(zone, '1.0-1.5', first, first + 10), hotSegmentKey(zone, '2.0-2.5', first + 20, last)].map((k) => parseSegmentKey(k)).filter((n) => n !== undefined);
    const key = compactedSegmentKey(hot);
    assert.match(key, new RegExp(`^${zone}/20260502/10/${first}-${last}-[0-9a-f]{12}\\.parquet$`));
    assert.equal(compactedSegmentKey([...hot].reverse()), key);
    assert.notEqual(compactedSegmentKey(hot.slice(1)), key);
    assert.equal(parseSegmentKey(key)?.tier, 'compacted');
    assert.equal(coversKeyOf(key), key.replace(/\.parquet$/, '.covers.json'));
    assert.equal(parseSegmentKey(coversKeyOf(key)), undefined);
  });

  it('expires an hour partition of either tier, and quarantined segments of it, once its end is older than the retention', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-expiry-'));
    const store = new LocalSegmentStore(root);
    const zone = 'b'.repeat(32);
    const put = async (key: string): Promise<void> => {
      const file = path.join(root, 'tmp');
      fs.writeFileSync(file, 'x');
      await store.put(key, file);
    };
    for (const hour of ['20260501/09', '20260501/10']) {
      await put(`${zone}/${hour}/1-2-0123456789ab.parquet`);
      await put(`${zone}/${hour}/3-4-0123456789ab.ndjson.zst`);
    }
    await put(`${zone}/quarantine/20260501-09-5-6-0123456789ab.ndjson.zst`);
    await put(`${zone}/quarantine/20260501-10-5-6-0123456789ab.ndjson.zst`);
    const retention = 86_400_000;
    assert.equal(await expireSegments(store, Date.UTC(2026, 4, 2, 9, 59), retention), 0);
    const removed: string[] = [];
    assert.equal(await expireSegments(store, Date.UTC(2026, 4, 2, 10, 0), retention, (prefix) => removed.push(prefix)), 1);
    assert.deepEqual(removed, [`${zone}/20260501/09/`]);
    assert.deepEqual(
      (await store.list(`${zone}/`)).map((e) => e.key),
      [`${zone}/20260501/10/1-2-0123456789ab.parquet`, `${zone}/20260501/10/3-4-0123456789ab.ndjson.zst`, `${zone}/quarantine/20260501-10-5-6-0123456789ab.ndjson.zst`],
    );
    fs.rmSync(root, { recursive: true, force: true });
  });
});
