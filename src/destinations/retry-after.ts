/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Capped, so a destination cannot park a
 * job for longer than the service's own patience by answering with a huge number.
 */

/** The longest delay a destination may ask for; longer requests are cut to this. */
export const maxRetryAfterMs = 60 * 60 * 1000;

/** The delay asked for, in milliseconds, or undefined when the header is absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, maxRetryAfterMs);
  // Every HTTP-date form starts with the weekday; requiring it keeps Date.parse from guessing at junk.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), maxRetryAfterMs);
}
