/**
 * A record's timestamps as dates. Instant Logs receives `EdgeStartTimestamp` and `EdgeEndTimestamp` as
 * Unix nanoseconds (or seconds, or RFC 3339 text, as a job's `timestamp_format` writes them); a reader
 * wants `2026-05-02 10:00:00.001 UTC`, or the same in the browser's time zone. Pure, so it is tested
 * without a browser.
 */

/** Where dates are shown: UTC, or the browser's time zone. */
export type TimeZoneChoice = 'utc' | 'local';

/** Milliseconds since the epoch of a timestamp value, from its text so nanoseconds are not rounded first. */
export function timestampMs(value: unknown): number | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || text === '') return undefined;
  const digits = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (digits === null) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : ms;
  }
  const whole = digits[1] ?? '';
  // Unix nanoseconds have 19 digits today, microseconds 16, milliseconds 13, seconds 10.
  if (whole.length >= 17) return Number(whole.slice(0, whole.length - 6));
  if (whole.length >= 15) return Number(whole.slice(0, whole.length - 3));
  if (whole.length >= 12) return Number(whole);
  return Math.round(Number(text) * 1000);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD HH:MM:SS.mmm UTC`, or the same in the browser's time zone with its offset (`+02:00`). */
export function dateText(ms: number, zone: TimeZoneChoice): string {
  const date = new Date(ms);
  if (zone === 'utc') return `${date.toISOString().slice(0, 23).replace('T', ' ')} UTC`;
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const fields = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  return `${fields} ${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** A timestamp value as a date, or undefined when it is not a time. */
export function eventTimeText(value: unknown, zone: TimeZoneChoice): string | undefined {
  const ms = timestampMs(value);
  return ms === undefined ? undefined : dateText(ms, zone);
}
