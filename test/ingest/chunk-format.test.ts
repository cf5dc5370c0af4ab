/**
 * The chunk payload: what ingest writes for each job (every event's status, the kept records' lengths and
 * their text, compressed when it is long) reads back the same for any statuses, records and delimiter; a
 * chunk of the first layout (records stored one after the other) is still read; anything else is refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chunkSection, encodeChunk, eventStatus, minDeflatedTextBytes, plainTextOf, retainedSectionId, type ChunkSection } from '../../src/ingest/chunk-format.ts';
import { firstLayoutPayload } from '../support/first-layout-chunk.ts';

/** A section for `jobId` from one entry per event: the record text, or the status of an event left out. */
function sectionOf(jobId: number, events: readonly (string | 1 | 2)[], delimiter: string) {
  const kept = events.filter((e): e is string => typeof e === 'string');
  return {
    jobId,
    statuses: Uint8Array.from(events.map((e) => (typeof e === 'string' ? eventStatus.kept : e))),
    recordLengths: kept.map((r) => Buffer.byteLength(r)),
    delimiterLength: Buffer.byteLength(delimiter),
    text: Buffer.from(kept.join(delimiter)),
  };
}

/** The section's text as it is, decompressed if it was compressed. */
function textOf(section: ChunkSection): Promise<Buffer> {
  return plainTextOf(section.text);
}

/** A record long enough that `count` of them make a text that is compressed. */
const longRecord = (i: number) => `{"RayID":"${i}","ClientRequestPath":"/${'p'.repeat(200)}"}\n`;

describe('the chunk payload', () => {
  const events: (string | 1 | 2)[] = ['{"a":1}\n', eventStatus.filteredOut, '{"b":"é"}\n', eventStatus.sampledOut, '{"c":3}\n'];

  it('gives each job its own section, and none to a job it does not hold', () => {
    const payload = encodeChunk(events.length, [sectionOf(7, events, ''), sectionOf(9, [1, 1, 1, 1, 1], '')], 3);
    assert.equal(chunkSection(payload, 7)?.kept, 3);
    assert.equal(chunkSection(payload, 9)?.kept, 0);
    assert.equal(chunkSection(payload, 8), undefined);
  });

  it('stores a short text as it is and a long one compressed', () => {
    const long = Array.from({ length: Math.ceil(minDeflatedTextBytes / 200) }, (_, i) => longRecord(i));
    const payload = encodeChunk(long.length, [sectionOf(1, long, ''), sectionOf(2, long.map((r, i) => (i < 3 ? r : 1)), '')], 3);
    const [compressed, plain] = [chunkSection(payload, 1), chunkSection(payload, 2)];
    assert.equal(compressed?.text.kind, 'deflated');
    assert.equal(plain?.text.kind, 'plain');
    assert.ok(payload.length < long.join('').length / 5, `${payload.length} bytes: the long text is compressed`);
  });

  for (const [kind, count] of [['short', 3], ['long', 1000]] as const) {
    it(`reads back statuses, what happened in any range and every kept record of a ${kind} text through a delimiter`, async () => {
      const list = Array.from({ length: count }, (_, i) => [longRecord(i), 1, 2][i % 3] as string | 1 | 2);
      const section = chunkSection(encodeChunk(list.length, [sectionOf(1, list, ',\n')], 3), 1);
      assert.ok(section !== undefined);
      assert.deepEqual([0, 1, 2].map((e) => section.status(e)), [0, 1, 2]);
      assert.deepEqual(section.tally(0, count), { kept: Math.ceil(count / 3), filteredOut: Math.ceil((count - 1) / 3), sampledOut: Math.floor(count / 3) });
      assert.deepEqual([section.tally(1, 3), section.tally(0, 1)], [{ kept: 0, filteredOut: 1, sampledOut: 1 }, { kept: 1, filteredOut: 0, sampledOut: 0 }]);
      const text = await textOf(section);
      const kept = list.filter((e): e is string => typeof e === 'string');
      assert.equal(text.toString(), kept.join(',\n'));
      assert.deepEqual(list.flatMap((e, i) => (typeof e === 'string' ? [section.recordOf(text, i).toString()] : [])), kept);
      assert.throws(() => section.recordOf(text, 1), /not kept/);
    });
  }

  it('stores the retained section as one zstd frame after the receive time, however short', async () => {
    const lines = ['{"_received_ms":1790000000123,"RayID":"a"}\n', '{"_received_ms":1790000000123}\n'];
    const text = Buffer.from(lines.join(''));
    const payload = encodeChunk(2, [{ jobId: retainedSectionId, statuses: new Uint8Array(2), recordLengths: lines.map((l) => l.length - 1), delimiterLength: 1, text, zstd: { receivedMs: 1790000000123 } }], 3);
    const section = chunkSection(payload, retainedSectionId);
    assert.ok(section !== undefined && section.text.kind === 'zstd');
    assert.equal(section.text.receivedMs, 1790000000123);
    // A zstd frame starts with its magic number.
    assert.equal(section.text.frame.readUInt32LE(0), 0xfd2fb528);
    const plain = await plainTextOf(section.text);
    assert.equal(plain.toString(), lines.join(''));
    assert.deepEqual([0, 1].map((e) => section.recordOf(plain, e).toString() + '\n'), lines);
  });

  it('reads a chunk of the first layout, whose records are stored one after the other', () => {
    const section = chunkSection(firstLayoutPayload(4, events), 4);
    assert.ok(section !== undefined && section.text.kind === 'records');
    const text = section.text.text;
    assert.deepEqual([0, 2, 4].map((e) => section.recordOf(text, e).toString()), ['{"a":1}\n', '{"b":"é"}\n', '{"c":3}\n']);
  });

  it('refuses a payload that is not a chunk', () => {
    for (const payload of [Buffer.alloc(0), Buffer.from('{"RayID":"1"}\n'), Buffer.from('LXC9\0\0\0\0\0\0\0\0')]) {
      assert.throws(() => chunkSection(payload, 1), /not a logexport chunk/);
    }
  });

  it('reads back any events and delimiter exactly', async () => {
    const event = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom<1 | 2>(1, 2));
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 60 }), fc.constantFrom('', '\n', ',', '→'), async (list, delimiter) => {
        const section = chunkSection(encodeChunk(list.length, [sectionOf(3, list, delimiter)], 3), 3);
        assert.ok(section !== undefined);
        const text = await textOf(section);
        const kept = list.filter((e): e is string => typeof e === 'string');
        assert.equal(text.toString(), kept.join(delimiter));
        assert.equal(section.tally(0, list.length).kept, kept.length);
        const read = list.flatMap((e, i) => (typeof e === 'string' ? [section.recordOf(text, i).toString()] : []));
        assert.deepEqual(read, kept);
      }),
      { numRuns: 200 },
    );
  });
});
