import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseRfc3339Nanos } from '../../../src/domain/datasets/rfc3339-nanos.ts';
import type { Rfc3339Problem } from '../../../src/domain/datasets/rfc3339-nanos.ts';
import { maxTimestampNanos } from '../../../src/domain/datasets/timestamp-range.ts';

const exact: readonly (readonly [string, string])[] = [
  ['1970-01-01T00:00:00Z', '0'],
  ['1970-01-01T00:00:00.000000001Z', '1'],
  ['1970-01-01T00:00:01Z', '1000000000'],
  ['2017-09-29T16:28:24Z', '1506702504000000000'],
  ['2017-09-29T16:28:24.4Z', '1506702504400000000'],
  ['2017-09-29T16:28:24.43Z', '1506702504430000000'],
  ['2017-09-29T16:28:24.433Z', '1506702504433000000'],
  ['2017-09-29T16:28:24.4330Z', '1506702504433000000'],
  ['2017-09-29T16:28:24.43300Z', '1506702504433000000'],
  ['2017-09-29T16:28:24.433000Z', '1506702504433000000'],
  ['2017-09-29T16:28:24.4330002Z', '1506702504433000200'],
  ['2017-09-29T16:28:24.43300020Z', '1506702504433000200'],
  ['2017-09-29T16:28:24.433000201Z', '1506702504433000201'],
  ['2017-09-29t16:28:24.433000201z', '1506702504433000201'],
  ['2017-09-29T18:28:24.433000201+02:00', '1506702504433000201'],
  ['2017-09-29T10:58:24.433000201-05:30', '1506702504433000201'],
  ['2017-09-29T16:28:24.433000201+00:00', '1506702504433000201'],
  ['2017-09-29T16:28:24.433000201-00:00', '1506702504433000201'],
  ['2017-09-30T16:27:24.433000201+23:59', '1506702504433000201'],
  ['1970-01-01T01:00:00+01:00', '0'],
  ['2000-02-29T00:00:00Z', '951782400000000000'],
  ['2024-02-29T23:59:59.999999999Z', '1709251199999999999'],
  ['2038-01-19T03:14:08Z', '2147483648000000000'],
  ['9999-12-31T23:59:59.999999999Z', maxTimestampNanos],
];

const refused: readonly (readonly [string, string, Rfc3339Problem['kind']])[] = [
  ['an empty string', '', 'format'],
  ['a date without a time', '2017-09-29', 'format'],
  ['a space instead of T', '2017-09-29 16:28:24Z', 'format'],
  ['no zone', '2017-09-29T16:28:24', 'format'],
  ['a zone without a colon', '2017-09-29T16:28:24+0200', 'format'],
  ['a zone with seconds', '2017-09-29T16:28:24+02:00:00', 'format'],
  ['a dot without digits', '2017-09-29T16:28:24.Z', 'format'],
  ['a comma as the decimal sign', '2017-09-29T16:28:24,5Z', 'format'],
  ['a two-digit year', '17-09-29T16:28:24Z', 'format'],
  ['a one-digit month', '2017-9-29T16:28:24Z', 'format'],
  ['text after the zone', '2017-09-29T16:28:24Zx', 'format'],
  ['a sign before the year', '+2017-09-29T16:28:24Z', 'format'],
  ['non-ASCII digits', '２017-09-29T16:28:24Z', 'format'],
  ['ten fraction digits', '2017-09-29T16:28:24.4330002001Z', 'fraction'],
  ['month 13', '2017-13-01T00:00:00Z', 'date'],
  ['month 00', '2017-00-01T00:00:00Z', 'date'],
  ['day 00', '2017-01-00T00:00:00Z', 'date'],
  ['February 30', '2024-02-30T00:00:00Z', 'date'],
  ['February 29 of a common year', '2023-02-29T00:00:00Z', 'date'],
  ['February 29 of 1900', '1900-02-29T00:00:00Z', 'date'],
  ['April 31', '2017-04-31T00:00:00Z', 'date'],
  ['hour 24', '2017-09-29T24:00:00Z', 'time'],
  ['minute 60', '2017-09-29T16:60:00Z', 'time'],
  ['second 61', '2017-09-29T16:28:61Z', 'time'],
  ['a leap second', '2016-12-31T23:59:60Z', 'leapSecond'],
  ['offset hour 24', '2017-09-29T16:28:24+24:00', 'offset'],
  ['offset minute 60', '2017-09-29T16:28:24+05:60', 'offset'],
  ['a year before 1970', '1969-12-31T23:59:59.999999999Z', 'beforeEpoch'],
  ['year 0000', '0000-01-01T00:00:00Z', 'beforeEpoch'],
  ['an offset that puts it before 1970', '1970-01-01T00:30:00+01:00', 'beforeEpoch'],
  ['an offset that puts it after year 9999', '9999-12-31T23:59:59-00:01', 'afterRange'],
];

describe('parseRfc3339Nanos', () => {
  for (const [text, nanos] of exact) {
    it(`reads ${text} as exactly ${nanos} ns`, () => {
      assert.deepEqual(parseRfc3339Nanos(text), { ok: true, value: nanos });
    });
  }

  for (const [name, text, kind] of refused) {
    it(`refuses ${name} as a ${kind} problem`, () => {
      assert.deepEqual(parseRfc3339Nanos(text), { ok: false, error: { kind } });
    });
  }

  it('reads back any instant written with any offset and 0 to 9 fraction digits, to the nanosecond', () => {
    const maxNanos = BigInt(maxTimestampNanos);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: maxNanos }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        fc.integer({ min: 0, max: 9 }),
        fc.boolean(),
        (nanos, offsetMinutes, digits, lowerCase) => {
          const seconds = nanos / 1_000_000_000n;
          const localSeconds = Number(seconds) + offsetMinutes * 60;
          // Only instants whose local time still has a four-digit year can be written in RFC 3339.
          fc.pre(localSeconds >= -62_167_219_200 && localSeconds <= 253_402_300_799);
          const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').slice(0, digits);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const magnitude = Math.abs(offsetMinutes);
          const zone =
            offsetMinutes === 0 && lowerCase
              ? 'z'
              : `${sign}${String(Math.floor(magnitude / 60)).padStart(2, '0')}:${String(magnitude % 60).padStart(2, '0')}`;
          // Date is the oracle for the calendar only; the fraction is text on both sides.
          let local = new Date(localSeconds * 1000).toISOString().slice(0, 19);
          if (lowerCase) local = local.replace('T', 't');
          const text = `${local}${digits > 0 ? `.${fraction}` : ''}${zone}`;
          const expected = seconds * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'));
          assert.deepEqual(parseRfc3339Nanos(text), { ok: true, value: expected.toString() });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws and answers every string with nanoseconds or a problem', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.stringMatching(/^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d{0,11})?([Zz]|[+-]\d\d:\d\d)$/)), (text) => {
        const result = parseRfc3339Nanos(text);
        if (result.ok) assert.match(result.value, /^(0|[1-9]\d*)$/);
        else assert.equal(typeof result.error.kind, 'string');
      }),
    );
  });
});
