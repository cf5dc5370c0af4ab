/**
 * The chunk payload: what ingest writes for each job (every event's status, the kept records' lengths,
 * their text compressed as one piece) reads back the same for any statuses, records and delimiter; a
 * chunk of the first layout (records stored as they are) is still read; anything else is refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chunkSection, encodeChunk, eventStatus } from '../../src/pipeline/chunk-format.ts';
import { deflateTextSync, inflateText } from '../../src/pipeline/deflated-text.ts';
import { firstLayoutPayload } from '../support/first-layout-chunk.ts';

/** A section for `jobId` from one entry per event: the record text, or a status for an event left out. */
function sectionOf(jobId: number, events: readonly (string | 1 | 2)[], delimiter: string) {
  const statuses = Uint8Array.from(events.map((e) => (typeof e === 'string' ? eventStatus.kept : e)));
  const kept = events.filter((e): e is string => typeof e === 'string');
  return {
    jobId,
    statuses,
    recordLengths: kept.map((r) => Buffer.byteLength(r)),
    delimiterLength: Buffer.byteLength(delimiter),
    text: deflateTextSync(Buffer.from(kept.join(delimiter)), 3),
  };
}

describe('the chunk payload', () => {
  const events: (string | 1 | 2)[] = ['{"a":1}\n', eventStatus.filteredOut, '{"b":"é"}\n', eventStatus.sampledOut, '{"c":3}\n'];

  it('gives each job its own section, and none to a job it does not hold', () => {
    const payload = encodeChunk(events.length, [sectionOf(7, events, ''), sectionOf(9, [1, 1, 1, 1, 1], '')]);
    assert.equal(chunkSection(payload, 7)?.kept, 3);
    assert.equal(chunkSection(payload, 9)?.kept, 0);
    assert.equal(chunkSection(payload, 8), undefined);
  });

  it('reads back statuses, kept counts of any range and every kept record through a delimiter', async () => {
    const payload = encodeChunk(events.length, [sectionOf(1, events, ',\n')]);
    const section = chunkSection(payload, 1);
    assert.ok(section !== undefined && section.piece !== undefined);
    assert.deepEqual([0, 1, 2, 3, 4].map((e) => section.status(e)), [0, 1, 0, 2, 0]);
    assert.deepEqual([section.keptIn(0, 5), section.keptIn(1, 2), section.keptIn(1, 3), section.keptIn(3, 5)], [3, 0, 1, 1]);
    const text = await inflateText(section.piece);
    assert.equal(text.toString(), '{"a":1}\n,\n{"b":"é"}\n,\n{"c":3}\n');
    assert.deepEqual([0, 2, 4].map((e) => section.recordOf(text, e).toString()), ['{"a":1}\n', '{"b":"é"}\n', '{"c":3}\n']);
    assert.throws(() => section.recordOf(text, 1), /not kept/);
  });

  it('reads a chunk of the first layout, whose records are stored as they are', () => {
    const section = chunkSection(firstLayoutPayload(4, events), 4);
    assert.ok(section !== undefined && section.rawText !== undefined);
    assert.equal(section.piece, undefined);
    assert.deepEqual([0, 2, 4].map((e) => section.recordOf(section.rawText as Buffer, e).toString()), ['{"a":1}\n', '{"b":"é"}\n', '{"c":3}\n']);
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
        const section = chunkSection(encodeChunk(list.length, [sectionOf(3, list, delimiter)]), 3);
        assert.ok(section !== undefined && section.piece !== undefined);
        const text = await inflateText(section.piece);
        const kept = list.filter((e): e is string => typeof e === 'string');
        assert.equal(text.toString(), kept.join(delimiter));
        assert.equal(section.keptIn(0, list.length), kept.length);
        const read = list.flatMap((e, i) => (typeof e === 'string' ? [section.recordOf(text, i).toString()] : []));
        assert.deepEqual(read, kept);
      }),
      { numRuns: 200 },
    );
  });
});
