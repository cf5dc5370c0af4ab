/** Sorting a Log Explorer result by a clicked column. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { nextSortOrder, sortRows } from '../../../web/src/model/result-sort.ts';

describe('sorting a result', () => {
  const cases: readonly [string, unknown[], unknown[]][] = [
    ['numbers by value, not as text', [10, 9, 100, -1], [-1, 9, 10, 100]],
    ['text naturally, without regard to case', ['b', 'A', 'a10', 'a9'], ['A', 'a9', 'a10', 'b']],
    ['dates by time', ['2026-11-26T16:00:00Z', '2026-11-26T15:59:59.5Z', '2026-11-25T23:00:00Z'], ['2026-11-25T23:00:00Z', '2026-11-26T15:59:59.5Z', '2026-11-26T16:00:00Z']],
    ['empty cells last', [null, 2, undefined, 1], [1, 2, null, undefined]],
    ['numbers before text in a mixed column', ['x', 2, 'a', 1], [1, 2, 'a', 'x']],
  ];
  for (const [what, values, expected] of cases) {
    it(`puts ${what}`, () => {
      const rows = values.map((v) => ({ v }));
      assert.deepEqual(
        sortRows(rows, { column: 'v', direction: 'ascending' }).map((r) => r.v),
        expected,
      );
    });
  }

  it('keeps empty cells last when descending too', () => {
    assert.deepEqual(
      sortRows([{ v: null }, { v: 1 }, { v: 3 }], { column: 'V', direction: 'descending' }).map((r) => r.v),
      [3, 1, null],
    );
  });

  it('keeps the order of equal rows either way', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 30 }), fc.boolean(), (keys, down) => {
        const rows = keys.map((k, i) => ({ k, i }));
        const sorted = sortRows(rows, { column: 'k', direction: down ? 'descending' : 'ascending' });
        for (let j = 1; j < sorted.length; j++) {
          const [a, b] = [sorted[j - 1]!, sorted[j]!];
          assert.ok(down ? a.k >= b.k : a.k <= b.k);
          if (a.k === b.k) assert.ok(a.i < b.i);
        }
      }),
    );
  });

  it('sorts ascending on a first click and turns the order round on a second', () => {
    assert.deepEqual(nextSortOrder(undefined, 'a'), { column: 'a', direction: 'ascending' });
    assert.deepEqual(nextSortOrder({ column: 'a', direction: 'ascending' }, 'a'), { column: 'a', direction: 'descending' });
    assert.deepEqual(nextSortOrder({ column: 'a', direction: 'descending' }, 'a'), { column: 'a', direction: 'ascending' });
    assert.deepEqual(nextSortOrder({ column: 'a', direction: 'descending' }, 'b'), { column: 'b', direction: 'ascending' });
  });
});
