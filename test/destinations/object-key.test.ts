import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compactTimestamp, expandDate, objectKey, staticKey } from '../../src/destinations/object-key.ts';

const first = Date.UTC(2026, 2, 14, 9, 5, 7, 123);
const last = Date.UTC(2026, 2, 14, 9, 5, 36, 999);

describe('objectKey', () => {
  it('is <path>/<start>_<end>_<8 hex>.log.gz with UTC compact timestamps', () => {
    const key = objectKey({ pathTemplate: 'acme/logs', jobId: 7, rangeId: '100-199', firstAppendMs: first, lastAppendMs: last });
    assert.match(key, /^acme\/logs\/20260314T090507Z_20260314T090536Z_[0-9a-f]{8}\.log\.gz$/);
  });

  it('puts the object at the root when the path is empty', () => {
    const key = objectKey({ pathTemplate: '', jobId: 7, rangeId: 'r', firstAppendMs: first, lastAppendMs: last });
    assert.match(key, /^20260314T090507Z_20260314T090536Z_[0-9a-f]{8}\.log\.gz$/);
  });

  it('replaces every {DATE} with the UTC day of the first record', () => {
    const lateEvening = Date.UTC(2026, 11, 31, 23, 59, 59);
    const key = objectKey({ pathTemplate: 'logs/{DATE}/x-{DATE}', jobId: 1, rangeId: 'r', firstAppendMs: lateEvening, lastAppendMs: lateEvening + 2000 });
    assert.match(key, /^logs\/20261231\/x-20261231\/20261231T235959Z_20270101T000001Z_/);
  });

  it('is the same for the same job and range, so a re-sent batch overwrites itself', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.string(), fc.integer({ min: 0, max: 4e12 }), (jobId, rangeId, at) => {
        const input = { pathTemplate: 'p/{DATE}', jobId, rangeId, firstAppendMs: at, lastAppendMs: at + 5 };
        assert.equal(objectKey(input), objectKey({ ...input }));
      }),
    );
  });

  it('differs between jobs and between ranges', () => {
    const base = { pathTemplate: 'p', jobId: 1, rangeId: '1-10', firstAppendMs: first, lastAppendMs: last };
    assert.notEqual(objectKey(base), objectKey({ ...base, jobId: 2 }));
    assert.notEqual(objectKey(base), objectKey({ ...base, rangeId: '11-20' }));
  });
});

describe('staticKey', () => {
  it('keeps files that belong to the destination above its dated folders', () => {
    assert.equal(staticKey('acme/logs/{DATE}', 'ownership-challenge-0a0b0c0d.txt'), 'acme/logs/ownership-challenge-0a0b0c0d.txt');
    assert.equal(staticKey('acme/{DATE}/x', 'f.txt'), 'acme/f.txt');
    assert.equal(staticKey('acme/logs', 'f.txt'), 'acme/logs/f.txt');
    assert.equal(staticKey('', 'f.txt'), 'f.txt');
    assert.equal(staticKey('{DATE}', 'f.txt'), 'f.txt');
  });
});

describe('compactTimestamp and expandDate', () => {
  it('format UTC time as YYYYMMDDTHHMMSSZ and days as YYYYMMDD', () => {
    assert.equal(compactTimestamp(0), '19700101T000000Z');
    assert.equal(expandDate('a/{DATE}', Date.UTC(2018, 4, 23)), 'a/20180523');
  });
});
