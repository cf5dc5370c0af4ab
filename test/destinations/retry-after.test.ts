import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { maxRetryAfterMs, parseRetryAfter } from '../../src/destinations/retry-after.ts';

const now = Date.UTC(2026, 0, 1, 0, 0, 0);

describe('parseRetryAfter', () => {
  const table: readonly [string | undefined, number | undefined][] = [
    [undefined, undefined],
    ['7', 7000],
    [' 0 ', 0],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Thursday, 01-Jan-26 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    ['99999999', maxRetryAfterMs],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['2026-01-01', undefined],
  ];
  for (const [header, expected] of table) {
    it(`reads ${JSON.stringify(header)} as ${String(expected)} ms`, () => {
      assert.equal(parseRetryAfter(header, now), expected);
    });
  }
});
