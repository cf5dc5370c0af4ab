/** What the retention writer takes from a chunk, how it names segments, and which hour partitions expire. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeChunk, eventStatus, minDeflatedTextBytes, retainedSectionId } from '../../src/ingest/chunk-format.ts';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';
import { retainedLines, segmentKey, segmentTimesOf } from '../../src/retention/retention-writer.ts';
import { expireSegments } from '../../src/retention/retention-expiry.ts';
import { hourPartitionOf, hourPartitionStart } from '../../src/retention/segment-store.ts';

function chunkOf(records: readonly string[], appendedAtMs: number, firstRecord = 0) {
  const text = Buffer.from(records.join('\n'));
  const payload = encodeChunk(records.length, [{ jobId: retainedSectionId, statuses: new Uint8Array(records.length).fill(eventStatus.kept), recordLengths: records.map((r) => Buffer.byteLength(r)), delimiterLength: 1, text }], 1);
  return { seq: 1, appendedAtMs, count: records.length, firstRecord, payload };
}

describe('retained lines', () => {
  it('gives every record as a line, also an empty one and text with non-ASCII and "\\n{" inside strings', async () => {
    const records = ['{"RayID":"a","ClientCity":"Zürich"}', '{}', '{"RayID":"b","ClientRequestPath":"/x\\n{y"}'];
    const lines = await retainedLines(chunkOf(records, 1234), 0, 3);
    const parsed = (lines?.toString('utf8') ?? '').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(parsed, [{ RayID: 'a', ClientCity: 'Zürich' }, {}, { RayID: 'b', ClientRequestPath: '/x\n{y' }]);
  });

  it('reads compressed sections and takes only the records asked for', async () => {
    const records = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ RayID: `r${i}`, ClientRequestUserAgent: 'x'.repeat(100) }));
    assert.ok(records.join('\n').length >= minDeflatedTextBytes);
    const all = await retainedLines(chunkOf(records, 5), 0, 2000);
    assert.equal(all?.toString().trim().split('\n').length, 2000);
    const some = await retainedLines(chunkOf(records, 5), 1990, 2000);
    assert.deepEqual(some?.toString().trim().split('\n').map((l) => (JSON.parse(l) as { RayID: string }).RayID), Array.from({ length: 10 }, (_, i) => `r${1990 + i}`));
  });

  it('finds nothing in a chunk queued while the flag was off', async () => {
    const payload = encodeChunk(1, [{ jobId: 7, statuses: new Uint8Array([eventStatus.kept]), recordLengths: [2], delimiterLength: 0, text: Buffer.from('{}') }], 1);
    assert.equal(await retainedLines({ seq: 1, appendedAtMs: 1, count: 1, firstRecord: 0, payload }, 0, 1), undefined);
  });
});

describe('segment names and partitions', () => {
  it('names a segment from its zone, hour, receive times and exact range, and reads the times back', () => {
    const zone = 'a'.repeat(32);
    const batch = { rangeId: '5.0-9.100', segments: [], firstAppendMs: Date.UTC(2026, 4, 2, 10, 59, 59), lastAppendMs: Date.UTC(2026, 4, 2, 10, 59, 59, 900) };
    const key = segmentKey(zone, batch);
    assert.match(key, new RegExp(`^${zone}/20260502/10/${batch.firstAppendMs}-${batch.lastAppendMs}-[0-9a-f]{12}\\.parquet$`));
    assert.equal(segmentKey(zone, batch), key);
    assert.notEqual(segmentKey(zone, { ...batch, rangeId: '5.0-9.99' }), key);
    assert.deepEqual(segmentTimesOf(key), { firstMs: batch.firstAppendMs, lastMs: batch.lastAppendMs });
    assert.equal(hourPartitionStart(hourPartitionOf(batch.firstAppendMs)), Date.UTC(2026, 4, 2, 10));
    assert.equal(hourPartitionStart('nonsense'), undefined);
  });

  it('expires an hour partition once its end is older than the retention', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-expiry-'));
    const store = new LocalSegmentStore(root);
    const zone = 'b'.repeat(32);
    for (const hour of ['20260501/09', '20260501/10']) {
      const file = path.join(root, 'tmp.parquet');
      fs.writeFileSync(file, 'x');
      await store.put(`${zone}/${hour}/1-2-abc.parquet`, file);
    }
    const retention = 86_400_000;
    assert.equal(await expireSegments(store, Date.UTC(2026, 4, 2, 9, 59), retention), 0);
    assert.equal(await expireSegments(store, Date.UTC(2026, 4, 2, 10, 0), retention), 1);
    assert.deepEqual(await store.list(`${zone}/`), [`${zone}/20260501/10/1-2-abc.parquet`]);
    fs.rmSync(root, { recursive: true, force: true });
  });
});
