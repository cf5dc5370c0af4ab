/** Reading Log Explorer answers: columns, keys in any case, dates and numbers. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numberValue, resultColumns, rowValue, timeValueMs } from '../../../web/src/model/sql-result.ts';

describe('a SQL answer', () => {
  it('lists the columns in the order they first appear', () => {
    assert.deepEqual(resultColumns([{ minute: 'a', requests: 1 }, { minute: 'b', bytes: 2 }]), ['minute', 'requests', 'bytes']);
    assert.deepEqual(resultColumns([]), []);
  });

  const keys: readonly [string, Record<string, unknown>, string, unknown][] = [
    ['an exact key', { requests: 3 }, 'requests', 3],
    ['a key in another case', { REQUESTS: 3 }, 'requests', 3],
    ['the exact key before one in another case', { Requests: 1, requests: 2 }, 'requests', 2],
    ['a dataset field answered in lower case', { clientrequesthost: 'a.example' }, 'ClientRequestHost', 'a.example'],
    ['a missing key', { other: 1 }, 'requests', undefined],
  ];
  for (const [what, row, column, expected] of keys) {
    it(`reads ${what}`, () => assert.equal(rowValue(row, column), expected));
  }

  const times: readonly [unknown, number | undefined][] = [
    ['2026-11-26T16:00:00Z', Date.UTC(2026, 10, 26, 16)],
    ['2026-11-26T16:00:00.250Z', Date.UTC(2026, 10, 26, 16, 0, 0, 250)],
    ['2026-11-26 16:00:00', Date.UTC(2026, 10, 26, 16)],
    ['2026-11-26T18:00:00+02:00', Date.UTC(2026, 10, 26, 16)],
    ['2026-11-26 16:00:00+00', Date.UTC(2026, 10, 26, 16)],
    ['2026-11-26T16:00', Date.UTC(2026, 10, 26, 16)],
    ['2026-11-26', undefined],
    ['2026-13-40T99:00:00Z', undefined],
    ['example.com', undefined],
    [1_790_000_000, undefined],
    [null, undefined],
  ];
  for (const [value, expected] of times) {
    it(`reads ${JSON.stringify(value)} as ${expected === undefined ? 'no time' : new Date(expected).toISOString()}`, () => assert.equal(timeValueMs(value), expected));
  }

  const numbers: readonly [unknown, number | undefined][] = [
    [42, 42],
    [-1.5, -1.5],
    ['12345678901234567890', 1.2345678901234567e19],
    ['3.25', 3.25],
    ['', undefined],
    ['12a', undefined],
    [Number.NaN, undefined],
    [true, undefined],
    [null, undefined],
  ];
  for (const [value, expected] of numbers) {
    it(`reads ${JSON.stringify(value)} as ${String(expected)}`, () => assert.equal(numberValue(value), expected));
  }
});
