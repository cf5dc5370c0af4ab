/**
 * The batcher: which limit closes a batch (records, uncompressed bytes, interval), how the consumed queue
 * range is written down (segments merge, filtered records count toward the range but not the batch), and
 * that `take` starts afresh. A property test drives it the way the job runner does and checks the limits
 * hold for any sequence of records.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { Batcher, batchFraming, compressBatch, type ClosedBatch } from '../../src/delivery/batcher.ts';
import { deflateTextSync } from '../../src/ingest/deflated-text.ts';
import type { BatchLimits } from '../../src/ingest/job-plan.ts';
import type { RecordFormatter } from '../../src/ingest/stages/format.ts';

/** A formatter whose framing is visible in the batch text; the records are given already formatted. */
const formatter: RecordFormatter = { batchPrefix: '[', batchSuffix: ']', recordDelimiter: ',', format: (record) => JSON.stringify(record) };
const framing = batchFraming(formatter);

const roomy: BatchLimits = { maxBytes: 1_000_000, maxRecords: 1_000_000, maxIntervalMs: 60_000 };
const t0 = Date.UTC(2026, 4, 2, 10, 0, 0);

function limits(overrides: Partial<BatchLimits>): BatchLimits {
  return { ...roomy, ...overrides };
}

/** Feeds `lines` (undefined = filtered out) as records 0.. of chunk `seq`, closing batches as the runner does. */
function feed(batcher: Batcher, seq: number, lines: readonly (string | undefined)[], nowMs = t0, appendedAtMs = t0): ClosedBatch[] {
  const closed: ClosedBatch[] = [];
  lines.forEach((line, index) => {
    const record = line === undefined ? undefined : Buffer.from(line);
    if (record !== undefined && batcher.wouldOverflow(1, record.length)) closed.push(batcher.take());
    batcher.consume(seq, index, appendedAtMs, record, nowMs);
    if (batcher.shouldClose(nowMs)) closed.push(batcher.take());
  });
  return closed;
}

/** A batch's text: its parts one after the other, compressed pieces decompressed. */
function textOf(batch: ClosedBatch): string {
  return batch.parts.map((part) => (part.kind === 'text' ? part.text : zlib.inflateRawSync(part.piece.deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH }))).join('');
}

/** A compressed piece of `records` joined by `delimiter`, as ingest writes it. */
function pieceOf(records: readonly string[], delimiter: string) {
  return deflateTextSync(Buffer.from(records.join(delimiter)), 1);
}

/** Consumes one record (undefined = filtered out) without closing anything. */
function consume(batcher: Batcher, seq: number, index: number, appendedAtMs: number, line: string | undefined, nowMs: number): void {
  batcher.consume(seq, index, appendedAtMs, line === undefined ? undefined : Buffer.from(line), nowMs);
}

describe('the batcher', () => {
  it('closes a batch when it holds max_upload_records records', () => {
    const batcher = new Batcher(limits({ maxRecords: 3 }), framing);
    const closed = feed(batcher, 1, ['"a"', '"b"', '"c"', '"d"']);
    assert.equal(closed.length, 1);
    assert.equal(closed[0]?.records, 3);
    assert.equal((closed[0] && textOf(closed[0])), '["a","b","c"]');
    assert.equal(batcher.isEmpty(), false, 'the fourth record opened the next batch');
    assert.equal(textOf(batcher.take()), '["d"]');
  });

  it('closes a batch before a record that would take it past max_upload_bytes', () => {
    // Records of 10 bytes and a 1-byte delimiter: three make 32 bytes, a fourth would make 43.
    const record = `"${'x'.repeat(8)}"`;
    const batcher = new Batcher(limits({ maxBytes: 40 }), framing);
    const closed = feed(batcher, 1, [record, record, record, record]);
    assert.deepEqual(closed.map((b) => [b.records, b.bytes]), [[3, 32]]);
    assert.equal(batcher.take().records, 1);
  });

  it('closes a batch that reaches max_upload_bytes exactly', () => {
    const batcher = new Batcher(limits({ maxBytes: 21 }), framing);
    const closed = feed(batcher, 1, [`"${'x'.repeat(8)}"`, `"${'y'.repeat(8)}"`]);
    assert.deepEqual(closed.map((b) => [b.records, b.bytes]), [[2, 21]]);
    assert.equal(batcher.isEmpty(), true);
  });

  it('counts bytes of UTF-8, not characters', () => {
    const batcher = new Batcher(limits({ maxBytes: 10 }), framing);
    // Four characters, eight bytes each; two of them would be 17 bytes.
    const closed = feed(batcher, 1, ['éééé', 'éééé']);
    assert.deepEqual(closed.map((b) => [b.records, b.bytes]), [[1, 8]]);
  });

  it('counts a multi-byte record delimiter in bytes too', () => {
    const arrows = batchFraming({ ...formatter, recordDelimiter: '→' });
    const batcher = new Batcher(limits({ maxBytes: 7 }), arrows);
    // "a→b" is 5 bytes; "a→b→c" would be 9.
    const closed = feed(batcher, 1, ['a', 'b', 'c']);
    assert.deepEqual(closed.map((b) => [textOf(b), b.bytes]), [['[a→b]', 5]]);
  });

  it('sends a record larger than max_upload_bytes alone in its own batch', () => {
    const batcher = new Batcher(limits({ maxBytes: 10 }), framing);
    const closed = feed(batcher, 1, ['"a"', `"${'z'.repeat(30)}"`, '"b"']);
    assert.deepEqual(closed.map(textOf), ['["a"]', `["${'z'.repeat(30)}"]`]);
    assert.equal(textOf(batcher.take()), '["b"]');
  });

  it('closes a batch max_upload_interval_seconds after its first record, not its last', () => {
    const batcher = new Batcher(limits({ maxIntervalMs: 30_000 }), framing);
    assert.equal(batcher.deadline(), undefined, 'an empty batch has no deadline');
    consume(batcher, 1, 0, t0, '"a"', t0);
    consume(batcher, 1, 1, t0, '"b"', t0 + 20_000);
    assert.equal(batcher.deadline(), t0 + 30_000);
    assert.equal(batcher.shouldClose(t0 + 29_999), false);
    assert.equal(batcher.shouldClose(t0 + 30_000), true);
  });

  it('never closes an empty batch, whatever the time', () => {
    const batcher = new Batcher(limits({ maxIntervalMs: 1 }), framing);
    assert.equal(batcher.shouldClose(t0 + 1e9), false);
  });

  it('merges consecutive records of one chunk into one segment and starts a new one at a new chunk or a gap', () => {
    const batcher = new Batcher(roomy, framing);
    for (let i = 0; i < 3; i++) consume(batcher, 7, i, t0, `"${i}"`, t0);
    for (let i = 0; i < 2; i++) consume(batcher, 9, i, t0 + 1000, `"${i}"`, t0);
    consume(batcher, 9, 5, t0 + 1000, '"gap"', t0);
    const batch = batcher.take();
    assert.deepEqual(batch.range.segments, [
      { seq: 7, from: 0, to: 3 },
      { seq: 9, from: 0, to: 2 },
      { seq: 9, from: 5, to: 6 },
    ]);
    assert.equal(batch.range.firstAppendMs, t0);
    assert.equal(batch.range.lastAppendMs, t0 + 1000);
  });

  it('without a record delimiter, writes records that follow each other in one payload exactly as given', () => {
    const ndjson = batchFraming({ batchPrefix: '', batchSuffix: '', recordDelimiter: '', format: (record) => JSON.stringify(record) });
    const payload = Buffer.from('a\nbb\nccc\nd\n');
    const views = [payload.subarray(0, 2), payload.subarray(2, 5), payload.subarray(5, 9), payload.subarray(9, 11)];
    const cases: { name: string; records: Buffer[]; text: string }[] = [
      { name: 'adjacent views', records: [views[0], views[1], views[2]] as Buffer[], text: 'a\nbb\nccc\n' },
      { name: 'a gap in the payload', records: [views[0], views[1], views[3]] as Buffer[], text: 'a\nbb\nd\n' },
      { name: 'the same view twice', records: [views[1], views[1]] as Buffer[], text: 'bb\nbb\n' },
      { name: 'views of two payloads', records: [views[2], Buffer.from('ccc\n'), views[3]] as Buffer[], text: 'ccc\nccc\nd\n' },
      { name: 'views out of order', records: [views[1], views[0]] as Buffer[], text: 'bb\na\n' },
    ];
    for (const { name, records, text } of cases) {
      const batcher = new Batcher(roomy, ndjson);
      records.forEach((record, index) => batcher.consume(1, index, t0, record, t0));
      const batch = batcher.take();
      assert.equal(textOf(batch), text, name);
      assert.equal(batch.records, records.length, name);
      assert.equal(batch.bytes, Buffer.byteLength(text), name);
    }
  });

  it('keeps filtered-out records in the range it commits, but not in the batch', () => {
    const batcher = new Batcher(limits({ maxRecords: 2 }), framing);
    const closed = feed(batcher, 4, [undefined, '"a"', undefined, undefined, '"b"', undefined]);
    assert.equal(closed.length, 1);
    assert.equal((closed[0] && textOf(closed[0])), '["a","b"]');
    assert.deepEqual(closed[0]?.range.segments, [{ seq: 4, from: 0, to: 5 }], 'the range covers records 0-4, kept or not');
    const rest = batcher.take();
    assert.equal(rest.records, 0);
    assert.equal(rest.parts.length, 0, 'a batch of only filtered records has nothing to send');
    assert.deepEqual(rest.range.segments, [{ seq: 4, from: 5, to: 6 }]);
  });

  it('opens the interval at a filtered-out record too, so its range is committed in time', () => {
    const batcher = new Batcher(limits({ maxIntervalMs: 1000 }), framing);
    consume(batcher, 1, 0, t0, undefined, t0);
    assert.equal(batcher.deadline(), t0 + 1000);
    assert.equal(batcher.shouldClose(t0 + 1000), true);
  });

  it('starts afresh after take: no records, bytes, range or deadline carried over', () => {
    const batcher = new Batcher(limits({ maxIntervalMs: 1000 }), framing);
    consume(batcher, 1, 0, t0, '"a"', t0);
    batcher.take();
    assert.equal(batcher.isEmpty(), true);
    assert.equal(batcher.deadline(), undefined);
    consume(batcher, 2, 0, t0 + 5000, '"b"', t0 + 5000);
    const batch = batcher.take();
    assert.deepEqual([textOf(batch), batch.records, batch.bytes], ['["b"]', 1, 3]);
    assert.deepEqual(batch.range.segments, [{ seq: 2, from: 0, to: 1 }]);
    assert.equal(batch.range.firstAppendMs, t0 + 5000);
  });

  it('names the same range the same way, and different ranges differently', () => {
    const a = new Batcher(roomy, framing);
    const b = new Batcher(roomy, framing);
    feed(a, 3, ['"x"', '"y"']);
    feed(b, 3, [undefined, undefined]);
    assert.equal(a.take().range.rangeId, b.take().range.rangeId, 'the name depends on the range only');
    feed(a, 3, ['"x"']);
    feed(b, 3, ['"x"', '"y"']);
    assert.notEqual(a.take().range.rangeId, b.take().range.rangeId);
  });

  it("takes a chunk's text whole, compressed or not, with the framing and delimiters around it", () => {
    const batcher = new Batcher(roomy, framing);
    consume(batcher, 1, 0, t0, '"a"', t0);
    batcher.consumeText(2, 0, 3, t0, { kind: 'deflated', piece: pieceOf(['"b"', '"c"'], ',') }, 2, t0);
    batcher.consumeText(3, 0, 4, t0, undefined, 0, t0);
    consume(batcher, 4, 0, t0, '"d"', t0);
    const batch = batcher.take();
    assert.equal(textOf(batch), '["a","b","c","d"]');
    assert.deepEqual([batch.records, batch.bytes], [4, 15]);
    assert.deepEqual(batch.range.segments, [
      { seq: 1, from: 0, to: 1 },
      { seq: 2, from: 0, to: 3 },
      { seq: 3, from: 0, to: 4 },
      { seq: 4, from: 0, to: 1 },
    ]);
  });

  it('closes the open batch before a piece that would take it past either limit, and says whether a piece fits at all', () => {
    const piece = pieceOf(['"b"', '"c"'], ',');
    const cases: { limits: Partial<BatchLimits>; overflows: boolean; fits: boolean }[] = [
      { limits: {}, overflows: false, fits: true },
      { limits: { maxRecords: 3 }, overflows: false, fits: true },
      { limits: { maxRecords: 2 }, overflows: true, fits: true },
      { limits: { maxRecords: 1 }, overflows: true, fits: false },
      // "a" (3 bytes) + "," + the piece's 7 bytes = 11.
      { limits: { maxBytes: 11 }, overflows: false, fits: true },
      { limits: { maxBytes: 10 }, overflows: true, fits: true },
      { limits: { maxBytes: 6 }, overflows: true, fits: false },
    ];
    for (const c of cases) {
      const batcher = new Batcher(limits(c.limits), framing);
      assert.equal(batcher.wouldOverflow(2, piece.length), false, 'an empty batch takes anything');
      consume(batcher, 1, 0, t0, '"a"', t0);
      assert.equal(batcher.wouldOverflow(2, piece.length), c.overflows, JSON.stringify(c.limits));
      assert.equal(batcher.fits(2, piece.length), c.fits, JSON.stringify(c.limits));
    }
  });

  it('compresses a batch into one gzip object that reads back as its text', async () => {
    const csv = batchFraming({ batchPrefix: 'h1,h2\n', batchSuffix: '-- end\n', recordDelimiter: '\n', format: (record) => JSON.stringify(record) });
    const batcher = new Batcher(roomy, csv);
    consume(batcher, 1, 0, t0, '1,2', t0);
    batcher.consumeText(2, 0, 2, t0, { kind: 'deflated', piece: pieceOf(['3,4', '5,6'], '\n') }, 2, t0);
    batcher.consumeText(3, 0, 1, t0, { kind: 'text', text: Buffer.from('7,8') }, 1, t0);
    consume(batcher, 4, 0, t0, '9,10', t0);
    const batch = batcher.take();
    const expected = 'h1,h2\n1,2\n3,4\n5,6\n7,8\n9,10-- end\n';
    assert.equal(textOf(batch), expected);
    for (const level of [1, 6]) assert.equal(zlib.gunzipSync(await compressBatch(batch.parts, level)).toString(), expected);
  });

  it('for any records and limits: holds the limits, keeps every record once and in order, and covers the range without gaps', () => {
    const record = fc.option(fc.string({ unit: 'binary', maxLength: 40 }), { nil: undefined, freq: 4 });
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 200 }),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 20 }),
        (lines, maxBytes, maxRecords) => {
          const batcher = new Batcher(limits({ maxBytes, maxRecords }), framing);
          const closed = feed(batcher, 1, lines);
          if (!batcher.isEmpty()) closed.push(batcher.take());
          const kept: string[] = [];
          let next = 0;
          for (const batch of closed) {
            assert.ok(batch.records <= maxRecords);
            if (batch.records > 1) assert.ok(batch.bytes <= maxBytes, `${batch.records} records of ${batch.bytes} bytes over ${maxBytes}`);
            const body = batch.records === 0 ? '' : textOf(batch).slice(1, -1);
            assert.equal(Buffer.byteLength(body), batch.bytes);
            for (const segment of batch.range.segments) {
              assert.equal(segment.from, next, 'the ranges follow each other without gaps');
              next = segment.to;
            }
            if (batch.records > 0) kept.push(textOf(batch));
          }
          assert.equal(next, lines.length);
          const expected = lines.filter((l): l is string => l !== undefined);
          assert.equal(closed.reduce((n, b) => n + b.records, 0), expected.length);
          // Records never hold the delimiter here, so the texts split back into them in order.
          if (expected.every((l) => !l.includes(','))) {
            assert.deepEqual(kept.flatMap((text) => text.slice(1, -1).split(',')), expected);
          }
        },
      ),
    );
  });
});
