/**
 * Normalisation of an event's timestamp value, sent as integer Unix nanoseconds (a JSON number or a digit
 * string) or as an RFC 3339 date-time, into canonical nanosecond digits. Timestamps above 2^53 ns (every
 * real one) lose digits in the double JSON.parse gives: they get their exact digits back from the line
 * text with `indexOf`, never a regular expression over the line.
 */
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import { describeJson, quote } from '../filters/filter-problem.ts';
import { parseRfc3339Nanos } from './rfc3339-nanos.ts';
import { exceedsMaxTimestampNanos, maxTimestampDouble, maxTimestampText } from './timestamp-range.ts';

const timestampForms = 'integer Unix nanoseconds or an RFC 3339 date-time such as 2017-09-29T16:28:24.433000200Z';
/** Longest digit string taken as nanoseconds; longer ones are past the range anyway, and not worth converting. */
const maxNanosDigits = 40;

/** Whether the line writes a timestamp as its canonical digits already; filled in by normalizeTimestamp. */
export interface TimestampText {
  asSent: boolean;
}

/**
 * Turns a timestamp value (nanoseconds as a number or digit string, or RFC 3339) into canonical nanosecond digits.
 * `rule.needle` is the key's JSON text (quotes included), by which the exact digits of a number above 2^53
 * are found in `line`, the JSON text the value was parsed from; `nested` says an object field holds the key too.
 * `text.asSent` says whether the line's text of the value is those digits already (a string of them, or a
 * bare number literal of them), so that the line, read as JSON, gives the canonical value.
 */
export function normalizeTimestamp(
  value: unknown,
  rule: { readonly name: string; readonly needle: string },
  line: string,
  nested: boolean,
  text: TimestampText = { asSent: false },
): Result<string, string> {
  const name = rule.name;
  text.asSent = false;
  if (typeof value === 'number') return nanosFromNumber(value, rule, line, nested, text);
  if (typeof value !== 'string') return err(`"${name}" must be ${timestampForms}, got ${describeJson(value)}`);
  if (isDigits(value)) {
    if (value.length > maxNanosDigits) return err(afterRangeMessage(name));
    const digits = withoutLeadingZeros(value);
    text.asSent = digits === value;
    return exceedsMaxTimestampNanos(digits) ? err(afterRangeMessage(name)) : ok(digits);
  }
  const parsed = parseRfc3339Nanos(value);
  if (parsed.ok) return parsed;
  switch (parsed.error.kind) {
    case 'format':
      return err(`"${name}" must be ${timestampForms}, got ${describeJson(value)}`);
    case 'fraction':
      return err(`"${name}" has more than 9 fraction digits (nanoseconds are the finest precision): ${quote(value)}`);
    case 'date':
      return err(`"${name}" names a date that does not exist: ${quote(value)}`);
    case 'time':
      return err(`"${name}" names a time of day that does not exist: ${quote(value)}`);
    case 'leapSecond':
      return err(`"${name}" has second 60 (a leap second), which Unix time cannot represent: ${quote(value)}`);
    case 'offset':
      return err(`"${name}" has an offset outside -23:59..+23:59: ${quote(value)}`);
    case 'beforeEpoch':
      return err(beforeEpochMessage(name));
    case 'afterRange':
      return err(afterRangeMessage(name));
  }
}

function beforeEpochMessage(name: string): string {
  return `"${name}" is before 1970-01-01T00:00:00Z; timestamps cannot be negative`;
}

function afterRangeMessage(name: string): string {
  return `"${name}" is after ${maxTimestampText}, the latest timestamp accepted`;
}

function nanosFromNumber(
  value: number,
  { name, needle }: { readonly name: string; readonly needle: string },
  line: string,
  nested: boolean,
  text: TimestampText,
): Result<string, string> {
  if (value < 0) return err(`"${name}" must not be negative, got ${String(value)}`);
  // Also catches Infinity, which JSON.parse gives for literals such as 1e400.
  if (!(value <= maxTimestampDouble)) return err(afterRangeMessage(name));
  // (The literal of a small integer is not looked up: such timestamps are before April 1970.)
  if (Number.isSafeInteger(value)) return ok(String(value));
  if (!Number.isInteger(value)) return err(`"${name}" must be a whole number of nanoseconds, got ${String(value)}`);
  // Above 2^53 the double has lost digits: take them from the line's text instead.
  const literal = recoverNumberLiteral(line, needle, value, nested);
  if (literal === undefined) return ok(BigInt(value).toString());
  const digits = integerDigits(literal);
  if (digits === undefined) {
    // The literal is as long as the client made it; a message shows only its start.
    const shown = literal.length > 48 ? `${literal.slice(0, 48)}…` : literal;
    return err(`"${name}" must be a whole number of nanoseconds, got ${shown}`);
  }
  text.asSent = literal === digits;
  return exceedsMaxTimestampNanos(digits) ? err(afterRangeMessage(name)) : ok(digits);
}

const quoteCode = 0x22;
const backslashCode = 0x5c;

/**
 * The number literal written for the key `needle` (the key's JSON text, quotes included) in `line`, when it
 * denotes exactly the double `value`. A quote preceded by an odd run of backslashes is escaped: that
 * occurrence sits inside a string value and is skipped, as is one not followed by a colon (a string value
 * equal to the key). The first occurrence whose literal denotes `value` is taken, so the common line is
 * searched only up to its key. (JSON.parse keeps the last of duplicate keys; only two duplicates whose
 * literals differ beyond a double's precision could make that a different choice.) When an object field
 * holds the same key (`nested`), only a scan that tracks nesting can tell them apart.
 */
function recoverNumberLiteral(line: string, needle: string, value: number, nested: boolean): string | undefined {
  if (nested) {
    const literal = lastTopLevelNumber(line, needle);
    return literal !== undefined && Number(literal) === value ? literal : undefined;
  }
  for (let at = line.indexOf(needle); at > 0; at = line.indexOf(needle, at + needle.length)) {
    if (isEscapedQuote(line, at)) continue;
    const literal = numberAfterColon(line, at + needle.length);
    if (literal !== undefined && Number(literal) === value) return literal;
  }
  return undefined;
}

function isEscapedQuote(line: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && line.charCodeAt(i) === backslashCode; i--) backslashes++;
  return backslashes % 2 === 1;
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** The number literal after `: ` at `position`, or undefined when what follows is not `:` and a number. */
function numberAfterColon(line: string, position: number): string | undefined {
  let i = position;
  while (i < line.length && isJsonSpace(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== 0x3a) return undefined;
  i++;
  while (i < line.length && isJsonSpace(line.charCodeAt(i))) i++;
  const start = i;
  while (i < line.length && isNumberChar(line.charCodeAt(i))) i++;
  return i > start ? line.slice(start, i) : undefined;
}

function isNumberChar(code: number): boolean {
  // 0-9 . + - e E: JSON.parse already accepted the line, so these characters form one valid number.
  return (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x2b || code === 0x2d || code === 0x65 || code === 0x45;
}

/** Walks the whole (valid JSON) line tracking nesting; the literal of the last `needle` key of the top-level object. */
function lastTopLevelNumber(line: string, needle: string): string | undefined {
  let depth = 0;
  let last: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code === quoteCode) {
      const start = i;
      for (i++; i < line.length; i++) {
        const inner = line.charCodeAt(i);
        if (inner === backslashCode) i++;
        else if (inner === quoteCode) break;
      }
      if (depth === 1 && i + 1 - start === needle.length && line.startsWith(needle, start)) {
        const literal = numberAfterColon(line, i + 1);
        if (literal !== undefined) last = literal;
      }
    } else if (code === 0x7b || code === 0x5b) depth++;
    else if (code === 0x7d || code === 0x5d) depth--;
  }
  return last;
}

/**
 * The exact decimal digits of the non-negative integer a JSON number literal denotes (`1.5e3` → "1500"),
 * or undefined when it has a fractional part. Only called for values within the timestamp range, so the
 * exponent is small and the result short.
 */
function integerDigits(literal: string): string | undefined {
  let exponentAt = literal.indexOf('e');
  if (exponentAt < 0) exponentAt = literal.indexOf('E');
  const mantissa = exponentAt < 0 ? literal : literal.slice(0, exponentAt);
  const exponent = exponentAt < 0 ? 0 : Number(literal.slice(exponentAt + 1));
  const dot = mantissa.indexOf('.');
  const whole = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const fraction = dot < 0 ? '' : mantissa.slice(dot + 1);
  let digits = whole + fraction;
  const scale = exponent - fraction.length;
  if (scale >= 0) digits += '0'.repeat(scale);
  else {
    const cut = Math.max(0, digits.length + scale);
    for (let i = cut; i < digits.length; i++) if (digits.charCodeAt(i) !== 0x30) return undefined;
    digits = digits.slice(0, cut);
  }
  return withoutLeadingZeros(digits);
}

function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

function withoutLeadingZeros(digits: string): string {
  let start = 0;
  while (start < digits.length - 1 && digits.charCodeAt(start) === 0x30) start++;
  return digits.length === 0 ? '0' : digits.slice(start);
}
