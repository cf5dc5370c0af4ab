/**
 * Converts an RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, `T` and `Z` in either case,
 * up to nine fraction digits) into canonical Unix nanosecond digits, exactly: the calendar is computed in
 * integers and the fraction is appended as digits, never passed through a Date or a float.
 */
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import { maxTimestampSeconds } from './timestamp-range.ts';

/** Why a string is not an accepted RFC 3339 timestamp. */
export interface Rfc3339Problem {
  readonly kind: 'format' | 'fraction' | 'date' | 'time' | 'leapSecond' | 'offset' | 'beforeEpoch' | 'afterRange';
}

const problems: { readonly [K in Rfc3339Problem['kind']]: Rfc3339Problem } = Object.freeze({
  format: { kind: 'format' },
  fraction: { kind: 'fraction' },
  date: { kind: 'date' },
  time: { kind: 'time' },
  leapSecond: { kind: 'leapSecond' },
  offset: { kind: 'offset' },
  beforeEpoch: { kind: 'beforeEpoch' },
  afterRange: { kind: 'afterRange' },
});

const secondsPerDay = 86_400;
const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Parses `text` as RFC 3339 into decimal Unix nanoseconds (no sign, no leading zeros), within the accepted range. */
export function parseRfc3339Nanos(text: string): Result<string, Rfc3339Problem> {
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (
    year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 ||
    text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || (text.charCodeAt(10) | 0x20) !== 0x74 ||
    text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a
  ) {
    return err(problems.format);
  }

  let position = 19;
  let fractionNanos = 0;
  if (text.charCodeAt(position) === 0x2e) {
    const start = ++position;
    while (isDigit(text.charCodeAt(position))) position++;
    const count = position - start;
    if (count === 0) return err(problems.format);
    if (count > 9) return isZone(text, position) ? err(problems.fraction) : err(problems.format);
    for (let i = start; i < position; i++) fractionNanos = fractionNanos * 10 + (text.charCodeAt(i) - 0x30);
    for (let i = count; i < 9; i++) fractionNanos *= 10;
  }

  let offsetSeconds = 0;
  const zone = text.charCodeAt(position);
  if ((zone | 0x20) === 0x7a) {
    if (text.length !== position + 1) return err(problems.format);
  } else if (zone === 0x2b || zone === 0x2d) {
    const offsetHours = digitsAt(text, position + 1, 2);
    const offsetMinutes = digitsAt(text, position + 4, 2);
    if (offsetHours < 0 || offsetMinutes < 0 || text.charCodeAt(position + 3) !== 0x3a || text.length !== position + 6) {
      return err(problems.format);
    }
    if (offsetHours > 23 || offsetMinutes > 59) return err(problems.offset);
    offsetSeconds = (zone === 0x2b ? 1 : -1) * (offsetHours * 3600 + offsetMinutes * 60);
  } else {
    return err(problems.format);
  }

  if (month < 1 || month > 12 || day < 1 || day > monthLength(year, month)) return err(problems.date);
  if (second === 60 && hour <= 23 && minute <= 59) return err(problems.leapSecond);
  if (hour > 23 || minute > 59 || second > 59) return err(problems.time);

  // The local time minus its offset is UTC; all of this stays far inside the safe-integer range.
  const seconds = daysFromCivil(year, month, day) * secondsPerDay + hour * 3600 + minute * 60 + second - offsetSeconds;
  if (seconds < 0) return err(problems.beforeEpoch);
  if (seconds > maxTimestampSeconds) return err(problems.afterRange);
  if (seconds === 0) return ok(String(fractionNanos));
  return ok(`${seconds}${String(fractionNanos).padStart(9, '0')}`);
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Whether a zone designator (`Z`, `+`, `-`) starts at `position`: decides between a long fraction and garbage. */
function isZone(text: string, position: number): boolean {
  const code = text.charCodeAt(position);
  return (code | 0x20) === 0x7a || code === 0x2b || code === 0x2d;
}

/** The value of `count` decimal digits at `start`, or -1 when any of them is not a digit. */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return -1;
    value = value * 10 + (code - 0x30);
  }
  return value;
}

function monthLength(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return daysInMonth[month - 1] ?? 0;
}

/** Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's `days_from_civil`). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
