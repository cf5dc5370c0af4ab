/**
 * The range of timestamps an event may carry: from the Unix epoch to the last nanosecond of year 9999, the
 * latest instant every `timestamp_format` can write (RFC 3339 has four-digit years).
 */

/** The latest accepted timestamp, in RFC 3339. */
export const maxTimestampText = '9999-12-31T23:59:59.999999999Z';

/** The latest accepted timestamp in Unix seconds. */
export const maxTimestampSeconds = 253_402_300_799;

/** The latest accepted timestamp in Unix nanoseconds, as canonical decimal digits. */
export const maxTimestampNanos = '253402300799999999999';

/** The nearest double to `maxTimestampNanos`: a number above it is certainly out of range. */
export const maxTimestampDouble = Number(maxTimestampNanos);

/** Whether canonical nanosecond digits (no sign, no leading zeros) lie after the latest accepted timestamp. */
export function exceedsMaxTimestampNanos(digits: string): boolean {
  // Without leading zeros, a longer text is a larger number, and equal lengths compare as strings.
  return digits.length > maxTimestampNanos.length || (digits.length === maxTimestampNanos.length && digits > maxTimestampNanos);
}
