/**
 * Turns a record's timestamp (decimal integer Unix nanoseconds, see event-record.ts) into the text of a
 * `timestamp_format`, exactly: nanoseconds never pass through a float, so no digit is lost.
 */
import type { TimestampFormat } from '../../domain/jobs/output-options.ts';

/** Renders one timestamp value; undefined when the value is not an integer or cannot be written in the format. */
export type TimestampText = (value: unknown) => string | undefined;

const nanosPerSecond = 1_000_000_000n;
const canonicalNanos = /^(?:0|[1-9]\d{0,29})$/;
const anyIntegerNanos = /^[+-]?\d{1,30}$/;
// RFC 3339 has four-digit years: 0000-01-01T00:00:00Z .. 9999-12-31T23:59:59Z, in Unix seconds.
const minRfc3339Seconds = -62_167_219_200;
const maxRfc3339Seconds = 253_402_300_799;

/** The decimal text of an integer nanosecond value without sign noise or leading zeros, or undefined. */
function nanosText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (canonicalNanos.test(value)) return value;
    return anyIntegerNanos.test(value) ? BigInt(value).toString() : undefined;
  }
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value === 'bigint') return value.toString();
  return undefined;
}

/** Whole seconds (floored) and the 9-digit fraction of a nanosecond text. */
interface SplitNanos {
  readonly seconds: string;
  readonly fraction: string;
}

function splitNanos(nanos: string): SplitNanos {
  if (!nanos.startsWith('-')) {
    // Positive values (every real event) split by string slicing: no BigInt, no allocation beyond the slices.
    if (nanos.length <= 9) return { seconds: '0', fraction: nanos.padStart(9, '0') };
    return { seconds: nanos.slice(0, -9), fraction: nanos.slice(-9) };
  }
  const n = BigInt(nanos);
  let seconds = n / nanosPerSecond;
  let rest = n % nanosPerSecond;
  if (rest < 0n) {
    seconds -= 1n;
    rest += nanosPerSecond;
  }
  return { seconds: seconds.toString(), fraction: rest.toString().padStart(9, '0') };
}

/**
 * Compiles the renderer for one format. RFC 3339 renderers remember the last second they rendered,
 * because consecutive records mostly share it and building the date text is the costly part.
 */
export function compileTimestampText(format: TimestampFormat): TimestampText {
  switch (format) {
    case 'unixnano':
      return nanosText;
    case 'unix':
      return (value) => {
        const nanos = nanosText(value);
        return nanos === undefined ? undefined : splitNanos(nanos).seconds;
      };
    case 'rfc3339':
      return rfc3339Text(0);
    case 'rfc3339ms':
      return rfc3339Text(3);
    case 'rfc3339ns':
      return rfc3339Text(9);
  }
}

function rfc3339Text(fractionDigits: 0 | 3 | 9): TimestampText {
  let lastSeconds = '';
  let lastDateTime = '';
  return (value) => {
    const nanos = nanosText(value);
    if (nanos === undefined) return undefined;
    const { seconds, fraction } = splitNanos(nanos);
    if (seconds !== lastSeconds) {
      const s = Number(seconds);
      if (!(s >= minRfc3339Seconds && s <= maxRfc3339Seconds)) return undefined;
      // toISOString gives YYYY-MM-DDTHH:MM:SS.sssZ for years 0000..9999; keep the date and time of day.
      lastDateTime = new Date(s * 1000).toISOString().slice(0, 19);
      lastSeconds = seconds;
    }
    return fractionDigits === 0 ? `${lastDateTime}Z` : `${lastDateTime}.${fraction.slice(0, fractionDigits)}Z`;
  };
}
