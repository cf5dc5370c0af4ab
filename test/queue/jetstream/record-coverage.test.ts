import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RecordCoverage } from '../../../src/queue/jetstream/record-coverage.ts';

/** Disjoint ranges [from, to) cutting [0, count) at random points, in random order, with some left out. */
const cutChunk = fc
  .record({ count: fc.integer({ min: 1, max: 60 }), cuts: fc.uniqueArray(fc.integer({ min: 1, max: 59 }), { maxLength: 10 }), keep: fc.array(fc.boolean(), { minLength: 11, maxLength: 11 }) })
  .chain(({ count, cuts, keep }) => {
    const points = [0, ...cuts.filter((c) => c < count).sort((a, b) => a - b), count];
    const ranges = points.slice(1).map((to, i) => [points[i]!, to] as const).filter((_, i) => keep[i]);
    return fc.record({ count: fc.constant(count), ranges: fc.shuffledSubarray(ranges, { minLength: ranges.length, maxLength: ranges.length }) });
  });

describe('the coverage of a chunk by commits', () => {
  it('is complete exactly when the committed ranges cover every record, in whatever order they came', () => {
    fc.assert(
      fc.property(cutChunk, ({ count, ranges }) => {
        const coverage = new RecordCoverage();
        for (const [from, to] of ranges) {
          assert.equal(coverage.overlaps(from, to), false);
          coverage.add(from, to);
          assert.equal(coverage.overlaps(from, to), true);
        }
        const covered = new Set(ranges.flatMap(([from, to]) => Array.from({ length: to - from }, (_, i) => from + i)));
        assert.equal(coverage.isComplete(count), covered.size === count);
        let prefix = 0;
        while (covered.has(prefix)) prefix++;
        assert.equal(coverage.prefix(), prefix);
      }),
    );
  });

  it('starts a chunk committed from its first record after the committed records', () => {
    const coverage = new RecordCoverage();
    assert.equal(coverage.prefix(), 0);
    coverage.add(2, 4);
    assert.equal(coverage.prefix(), 0, 'a gap at the start');
    coverage.add(0, 2);
    assert.equal(coverage.prefix(), 4);
    assert.equal(coverage.isComplete(4), true);
    assert.equal(coverage.isComplete(5), false);
  });

  it('refuses a range that is empty or negative', () => {
    const coverage = new RecordCoverage();
    assert.throws(() => coverage.add(3, 3), /not a range/);
    assert.throws(() => coverage.add(-1, 2), /not a range/);
  });
});
