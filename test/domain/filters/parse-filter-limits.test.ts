import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import { defaultFilterLimits, parseFilter } from '../../../src/domain/filters/parse-filter.ts';
import type { FilterLimits } from '../../../src/domain/filters/parse-filter.ts';

const condition = { key: 'BotScore', operator: 'lt', value: 30 };

/** A filter whose `and` group holds `count` conditions. */
function withConditions(count: number): string {
  return JSON.stringify({ where: { and: Array.from({ length: count }, () => condition) } });
}

/** A one-condition filter padded with `unit` characters to exactly `bytes` bytes of UTF-8. */
function ofBytes(bytes: number, unit = 'a'): string {
  const base = JSON.stringify({ where: { key: 'ClientRequestPath', operator: 'eq', value: '' } });
  const room = bytes - Buffer.byteLength(base);
  const unitBytes = Buffer.byteLength(unit);
  const padding = unit.repeat(Math.floor(room / unitBytes)) + 'a'.repeat(room % unitBytes);
  const text = JSON.stringify({ where: { key: 'ClientRequestPath', operator: 'eq', value: padding } });
  assert.equal(Buffer.byteLength(text), bytes);
  return text;
}

// The default byte limit alone keeps a filter well under 30 conditions, so the operator limit is
// exercised with room to spare on bytes.
const roomyBytes: FilterLimits = { maxOperators: 30, maxBytes: 100_000 };

describe('the operator limit', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(defaultFilterLimits, { maxOperators: 30, maxBytes: 1000 });
  });

  it('accepts exactly 30 conditions', () => {
    assert.ok(parseFilter(withConditions(30), httpRequests, roomyBytes).ok);
  });

  it('rejects 31 conditions at the 31st, naming the limit and the count', () => {
    const result = parseFilter(withConditions(31), httpRequests, roomyBytes);
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '/where/and/30');
    assert.match(result.error.message, /^\/where\/and\/30: the filter has 31 operators .*at most 30 are allowed$/);
  });

  it('counts every condition of the filter in the message, not just up to the first one over', () => {
    const result = parseFilter(withConditions(45), httpRequests, roomyBytes);
    assert.ok(!result.ok);
    assert.ok(result.error.message.includes('has 45 operators'), result.error.message);
  });

  it('counts conditions across nested groups in document order', () => {
    const group = { or: Array.from({ length: 10 }, () => condition) };
    const text = JSON.stringify({ where: { and: [group, group, group, { and: [condition] }] } });
    const result = parseFilter(text, httpRequests, roomyBytes);
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '/where/and/3/and/0');
  });

  it('follows a configured limit', () => {
    const limits = { maxOperators: 3, maxBytes: 1000 };
    assert.ok(parseFilter(withConditions(3), httpRequests, limits).ok);
    const result = parseFilter(withConditions(4), httpRequests, limits);
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '/where/and/3');
    assert.ok(result.error.message.includes('at most 3'), result.error.message);
  });

  it('holds for any count and limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), (count, maxOperators) => {
        const result = parseFilter(withConditions(count), httpRequests, { maxOperators, maxBytes: 100_000 });
        assert.equal(result.ok, count <= maxOperators);
      }),
    );
  });
});

describe('the byte limit', () => {
  it('accepts a filter of exactly 1000 bytes', () => {
    assert.ok(parseFilter(ofBytes(1000), httpRequests, defaultFilterLimits).ok);
  });

  it('rejects a filter of 1001 bytes at the document, naming the limit and the size', () => {
    const result = parseFilter(ofBytes(1001), httpRequests, defaultFilterLimits);
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '');
    assert.equal(result.error.message, 'filter: the filter is 1001 bytes long; at most 1000 bytes are allowed');
  });

  it('counts UTF-8 bytes, not characters', () => {
    const text = ofBytes(1001, 'é');
    assert.ok(text.length < 1000);
    const result = parseFilter(text, httpRequests, defaultFilterLimits);
    assert.ok(!result.ok);
    assert.ok(result.error.message.includes('1001 bytes'), result.error.message);
    assert.ok(parseFilter(ofBytes(1000, '€'), httpRequests, defaultFilterLimits).ok);
  });

  it('is checked before the text is read as JSON', () => {
    const result = parseFilter(`{${' '.repeat(1000)}`, httpRequests, defaultFilterLimits);
    assert.ok(!result.ok);
    assert.ok(result.error.message.includes('1001 bytes'), result.error.message);
  });

  it('follows a configured limit', () => {
    const limits = { maxOperators: 30, maxBytes: 120 };
    assert.ok(parseFilter(ofBytes(120), httpRequests, limits).ok);
    const result = parseFilter(ofBytes(121), httpRequests, limits);
    assert.ok(!result.ok);
    assert.ok(result.error.message.includes('at most 120 bytes'), result.error.message);
  });

  it('holds for any size and limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 70, max: 3000 }), fc.integer({ min: 70, max: 3000 }), (bytes, maxBytes) => {
        const result = parseFilter(ofBytes(bytes), httpRequests, { maxOperators: 30, maxBytes });
        assert.equal(result.ok, bytes <= maxBytes);
      }),
    );
  });
});

describe('the two limits are independent', () => {
  it('rejects too many conditions even when the bytes are within a generous limit', () => {
    const result = parseFilter(withConditions(31), httpRequests, { maxOperators: 30, maxBytes: 1_000_000 });
    assert.ok(!result.ok);
    assert.ok(result.error.message.includes('operators'), result.error.message);
  });

  it('rejects too many bytes even when the conditions are within a generous limit', () => {
    const result = parseFilter(withConditions(31), httpRequests, { maxOperators: 1000, maxBytes: 1000 });
    assert.ok(!result.ok);
    assert.ok(result.error.message.includes('bytes'), result.error.message);
  });

  it('rejects a single condition that is too long', () => {
    const result = parseFilter(ofBytes(5000), httpRequests, { maxOperators: 1000, maxBytes: 1000 });
    assert.ok(!result.ok);
    assert.equal(result.error.pointer, '');
  });
});
