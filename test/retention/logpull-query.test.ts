/** The Logpull query parser: times in three forms, the window's edges and limits, and every parameter's problems. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { logpullDefaultFields, maxWindowNs, parseLogpullQuery, parseLogpullTime } from '../../src/retention/logpull-query.ts';

const now = Date.UTC(2026, 4, 2, 12, 0, 0);
const week = 7 * 86_400_000;
const parse = (query: Record<string, string>) => parseLogpullQuery(query, httpRequests, now, week);
const s = (ms: number) => String(ms / 1000);

describe('Logpull times', () => {
  const cases: [string, bigint | undefined][] = [
    ['1777723200', 1_777_723_200_000_000_000n],
    ['1777723200000000000', 1_777_723_200_000_000_000n],
    ['1777723200123456789', 1_777_723_200_123_456_789n],
    ['2026-05-02T12:00:00Z', 1_777_723_200_000_000_000n],
    ['2026-05-02T14:00:00.5+02:00', 1_777_723_200_500_000_000n],
    ['0', 0n],
    ['yesterday', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`reads ${JSON.stringify(text)} as ${expected ?? 'not a time'}`, () => assert.equal(parseLogpullTime(text), expected));
  }

  it('reads any Unix second count as that many seconds, and any nanosecond count as itself', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (seconds) => parseLogpullTime(String(seconds)) === BigInt(seconds) * 1_000_000_000n));
    fc.assert(fc.property(fc.bigInt({ min: 10n ** 12n, max: 10n ** 20n }), (ns) => parseLogpullTime(ns.toString()) === ns));
  });
});

describe('Logpull queries', () => {
  it('gives the window, the default fields and the defaults', () => {
    const parsed = parse({ start: s(now - 60_000), end: s(now) });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.window, { startNs: BigInt(now - 60_000) * 1_000_000n, endNs: BigInt(now) * 1_000_000n });
    assert.deepEqual(parsed.value.fields.map((f) => f.name), [...logpullDefaultFields]);
    assert.equal(parsed.value.count, undefined);
    assert.equal(parsed.value.sample, 1);
    assert.equal(parsed.value.timestamps, 'unixnano');
    assert.equal(parsed.value.redact, false);
  });

  it('takes fields, count, sample, timestamps and the CVE flag', () => {
    const parsed = parse({ start: s(now - 60_000), end: s(now), fields: 'RayID,ClientIP,RayID', count: '10', sample: '0.25', timestamps: 'rfc3339', 'CVE-2021-44228': 'true' });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.fields.map((f) => f.name), ['RayID', 'ClientIP']);
    assert.equal(parsed.value.count, 10);
    assert.equal(parsed.value.sample, 0.25);
    assert.equal(parsed.value.timestamps, 'rfc3339');
    assert.equal(parsed.value.redact, true);
  });

  const problems: [string, Record<string, string>, string][] = [
    ['no start', { end: s(now) }, '/start'],
    ['no end', { start: s(now - 60_000) }, '/end'],
    ['end equal to start', { start: s(now), end: s(now) }, '/end'],
    ['end before start', { start: s(now), end: s(now - 1000) }, '/end'],
    ['a window over an hour', { start: s(now - 3_601_000), end: s(now) }, '/end'],
    ['a start older than the retention', { start: s(now - week - 60_000), end: s(now - week) }, '/start'],
    ['an unknown field', { start: s(now - 60_000), end: s(now), fields: 'RayID,Nope' }, '/fields'],
    ['a field list with a space', { start: s(now - 60_000), end: s(now), fields: 'RayID, ClientIP' }, '/fields'],
    ['an empty field', { start: s(now - 60_000), end: s(now), fields: 'RayID,' }, '/fields'],
    ['count 0', { start: s(now - 60_000), end: s(now), count: '0' }, '/count'],
    ['count -1', { start: s(now - 60_000), end: s(now), count: '-1' }, '/count'],
    ['sample 0', { start: s(now - 60_000), end: s(now), sample: '0' }, '/sample'],
    ['sample 0.009', { start: s(now - 60_000), end: s(now), sample: '0.009' }, '/sample'],
    ['sample 1.1', { start: s(now - 60_000), end: s(now), sample: '1.1' }, '/sample'],
    ['timestamps rfc3339ns', { start: s(now - 60_000), end: s(now), timestamps: 'rfc3339ns' }, '/timestamps'],
    ['CVE flag yes', { start: s(now - 60_000), end: s(now), 'CVE-2021-44228': 'yes' }, '/CVE-2021-44228'],
    ['an unknown parameter', { start: s(now - 60_000), end: s(now), limit: '5' }, '/limit'],
  ];
  for (const [what, query, pointer] of problems) {
    it(`refuses ${what}, naming ${pointer}`, () => {
      const parsed = parse(query);
      assert.ok(!parsed.ok);
      assert.ok(parsed.error.some((p) => p.pointer === pointer), JSON.stringify(parsed.error));
    });
  }

  it('accepts every window of at most an hour inside the retention, and refuses every longer one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: week - 3_600_000 }), fc.integer({ min: 1, max: 7_200_000 }), (ago, length) => {
        const startNs = BigInt(now - week + 60_000 + ago) * 1_000_000n;
        const endNs = startNs + BigInt(length) * 1_000_000n;
        const parsed = parse({ start: startNs.toString(), end: endNs.toString() });
        return parsed.ok === endNs - startNs <= maxWindowNs;
      }),
    );
  });
});
