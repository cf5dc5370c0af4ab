import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileTimestampText } from '../../../src/ingest/stages/timestamp-text.ts';
import type { TimestampFormat } from '../../../src/domain/jobs/output-options.ts';

const sample = '1506702504433000200';

describe('compileTimestampText', () => {
  const table: readonly [TimestampFormat, unknown, string | undefined][] = [
    ['unixnano', sample, sample],
    ['unix', sample, '1506702504'],
    ['rfc3339', sample, '2017-09-29T16:28:24Z'],
    ['rfc3339ms', sample, '2017-09-29T16:28:24.433Z'],
    ['rfc3339ns', sample, '2017-09-29T16:28:24.433000200Z'],
    ['rfc3339ms', '1506702504000000000', '2017-09-29T16:28:24.000Z'],
    ['rfc3339ns', '1506702504000000000', '2017-09-29T16:28:24.000000000Z'],
    ['rfc3339ms', '1506702504999999999', '2017-09-29T16:28:24.999Z'],
    ['unix', '1506702504999999999', '1506702504'],
    ['unixnano', '0', '0'],
    ['unix', '999999999', '0'],
    ['rfc3339ns', '5', '1970-01-01T00:00:00.000000005Z'],
    ['unixnano', '000123', '123'],
    ['unix', '-1', '-1'],
    ['rfc3339ns', '-1', '1969-12-31T23:59:59.999999999Z'],
    ['unix', '-1000000000', '-1'],
    ['unixnano', 1506702504, '1506702504'],
    ['unixnano', 1.5, undefined],
    ['unixnano', 'abc', undefined],
    ['unixnano', '2017-09-29T16:28:24Z', undefined],
    ['unix', '', undefined],
    ['rfc3339', null, undefined],
    ['rfc3339', undefined, undefined],
    ['rfc3339', '253402300800000000000', undefined],
    ['rfc3339', '253402300799999999999', '9999-12-31T23:59:59Z'],
    ['unixnano', '253402300800000000000', '253402300800000000000'],
  ];
  for (const [format, value, expected] of table) {
    it(`writes ${JSON.stringify(value)} as ${format} → ${JSON.stringify(expected)}`, () => {
      assert.equal(compileTimestampText(format)(value), expected);
    });
  }

  it('renders a second change correctly after reusing the cached date', () => {
    const text = compileTimestampText('rfc3339ms');
    assert.equal(text('1506702504433000200'), '2017-09-29T16:28:24.433Z');
    assert.equal(text('1506702504533000200'), '2017-09-29T16:28:24.533Z');
    assert.equal(text('1506702505000000000'), '2017-09-29T16:28:25.000Z');
    assert.equal(text('1506702504433000200'), '2017-09-29T16:28:24.433Z');
  });

  const nanos = fc.bigInt({ min: 0n, max: 253_402_300_799_999_999_999n });

  it('keeps every nanosecond: rfc3339ns reads back to the same integer', () => {
    const text = compileTimestampText('rfc3339ns');
    fc.assert(
      fc.property(nanos, (n) => {
        const out = text(n.toString());
        assert.ok(out !== undefined);
        assert.match(out, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
        const seconds = BigInt(Date.parse(`${out.slice(0, 19)}Z`) / 1000);
        assert.equal(seconds * 1_000_000_000n + BigInt(out.slice(20, 29)), n);
      }),
    );
  });

  it('floors to whole seconds for unix and truncates to milliseconds for rfc3339ms', () => {
    const unix = compileTimestampText('unix');
    const ms = compileTimestampText('rfc3339ms');
    fc.assert(
      fc.property(nanos, (n) => {
        assert.equal(unix(n.toString()), (n / 1_000_000_000n).toString());
        const expected = new Date(Number(n / 1_000_000n)).toISOString();
        assert.equal(ms(n.toString()), expected);
      }),
    );
  });
});
