/** The Analytics tab's ranges: presets up to now, custom ranges in UTC, bucket widths. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customWindow, maxBuckets, presetWindow, stepFor, stepText, utcInputText } from '../../../web/src/model/analytics-range.ts';

const now = Date.UTC(2026, 10, 26, 16, 30, 20);
const s = (ms: number) => ms / 1000;

describe('analytics ranges', () => {
  const presets = [
    ['hour', Date.UTC(2026, 10, 26, 15, 31), Date.UTC(2026, 10, 26, 16, 31), 60],
    ['day', Date.UTC(2026, 10, 25, 16, 45), Date.UTC(2026, 10, 26, 16, 45), 900],
    ['week', Date.UTC(2026, 10, 19, 17), Date.UTC(2026, 10, 26, 17), 3600],
  ] as const;
  for (const [choice, from, to, step] of presets) {
    it(`makes the ${choice} end with the bucket now falls in`, () => {
      assert.deepEqual(presetWindow(choice, now), { from: s(from), to: s(to), step });
    });
  }

  const custom: readonly [string, string, string, ReturnType<typeof customWindow>][] = [
    ['two hours', '2026-11-26T10:00', '2026-11-26T12:00', { ok: true, window: { from: s(Date.UTC(2026, 10, 26, 10)), to: s(Date.UTC(2026, 10, 26, 12)), step: 60 } }],
    ['with seconds', '2026-11-26T10:00:30', '2026-11-26T10:01', { ok: true, window: { from: s(Date.UTC(2026, 10, 26, 10, 0, 30)), to: s(Date.UTC(2026, 10, 26, 10, 1)), step: 60 } }],
    ['thirty days', '2026-10-27T00:00', '2026-11-26T00:00', { ok: true, window: { from: s(Date.UTC(2026, 9, 27)), to: s(Date.UTC(2026, 10, 26)), step: 6 * 3600 } }],
    ['an empty start', '', '2026-11-26T12:00', { ok: false, message: 'Enter both a start and an end (UTC).' }],
    ['a date alone', '2026-11-26', '2026-11-27', { ok: false, message: 'Enter both a start and an end (UTC).' }],
    ['an end before the start', '2026-11-26T12:00', '2026-11-26T11:00', { ok: false, message: 'The end must be after the start.' }],
    ['an end equal to the start', '2026-11-26T12:00', '2026-11-26T12:00', { ok: false, message: 'The end must be after the start.' }],
    ['more than 366 days', '2025-01-01T00:00', '2026-11-26T00:00', { ok: false, message: 'A custom range can be at most 366 days long.' }],
  ];
  for (const [what, from, to, expected] of custom) {
    it(`reads a custom range of ${what}`, () => assert.deepEqual(customWindow(from, to), expected));
  }

  it(`keeps every range within ${maxBuckets} buckets, with the narrowest bucket that does`, () => {
    for (const seconds of [60, 3600, 86_400, 7 * 86_400, 30 * 86_400, 366 * 86_400]) {
      const step = stepFor(seconds);
      assert.ok(seconds / step <= maxBuckets || step === 86_400, `${seconds} s in ${step} s buckets`);
    }
    assert.equal(stepFor(3600), 60);
    assert.equal(stepFor(7 * 86_400), 3600);
  });

  it('names bucket widths and writes inputs in UTC', () => {
    assert.deepEqual([60, 900, 3600, 6 * 3600, 86_400].map(stepText), ['1 minute', '15 minutes', '1 hour', '6 hours', '1 day']);
    assert.equal(utcInputText(s(Date.UTC(2026, 10, 26, 16, 30, 20))), '2026-11-26T16:30');
  });
});
