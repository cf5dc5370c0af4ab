import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dateText, eventTimeText, timestampMs } from '../../../web/src/model/event-time.ts';

const ms = Date.UTC(2026, 4, 2, 10, 0, 0, 1);

describe('record timestamps as dates', () => {
  const values: readonly [unknown, number | undefined][] = [
    ['1777716000001000000', ms],
    [1777716000001000000, ms],
    ['1777716000001000', ms],
    ['1777716000001', ms],
    ['1777716000', ms - 1],
    [1777716000.001, ms],
    ['2026-05-02T10:00:00.001Z', ms],
    ['2026-05-02T12:00:00.001+02:00', ms],
    ['2026-05-02T10:00:00.001000123Z', ms],
    ['', undefined],
    ['soon', undefined],
    [null, undefined],
    [true, undefined],
    [Number.NaN, undefined],
  ];
  for (const [value, expected] of values) {
    it(`reads ${JSON.stringify(value)} as ${expected === undefined ? 'no time' : new Date(expected).toISOString()}`, () => assert.equal(timestampMs(value), expected));
  }

  it('writes UTC with milliseconds and says so', () => {
    assert.equal(dateText(ms, 'utc'), '2026-05-02 10:00:00.001 UTC');
    assert.equal(eventTimeText('1777716000001000000', 'utc'), '2026-05-02 10:00:00.001 UTC');
    assert.equal(eventTimeText('soon', 'utc'), undefined);
  });

  it("writes the browser's time with its offset from UTC", () => {
    const local = dateText(ms, 'local');
    const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) ([+-])(\d\d):(\d\d)$/.exec(local);
    assert.ok(m !== null, local);
    const [y = 0, mo = 0, d, h, mi, s, frac] = m.slice(1, 8).map(Number);
    const offset = (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
    assert.equal(Date.UTC(y, mo - 1, d, h, mi, s, frac) - offset * 60_000, ms);
    assert.equal(offset, 0 - new Date(ms).getTimezoneOffset() || 0);
  });
});
