/**
 * Parsing of one ingest line (one NDJSON request event) into the canonical record of event-record.ts and
 * the raw headers that custom-field capture reads. This runs for every ingested event, so the dataset is
 * compiled once into a map of field rules; a line then costs one JSON.parse, one map lookup per key and
 * a type check per value. Timestamps above 2^53 ns (every real one) get their exact digits back from the
 * line text with `indexOf`, never a regular expression over the line.
 */
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import { describeJson, quote } from '../filters/filter-problem.ts';
import { findNonTokenChar, tokenPunctuation } from '../rulesets/token-char.ts';
import { customFieldNames } from './http-requests.ts';
import type { Dataset, DatasetField } from './http-requests.ts';
import { parseRfc3339Nanos } from './rfc3339-nanos.ts';
import { exceedsMaxTimestampNanos, maxTimestampDouble, maxTimestampText } from './timestamp-range.ts';

/** Raw headers as sent: `[name, value]` pairs in wire order, names in any case. */
export type RawHeaders = readonly (readonly [string, string])[];

/** One parsed ingest event: the canonical record (without custom-field maps) and the raw headers for capture. */
export interface IngestEvent {
  readonly record: Record<string, unknown>;
  readonly rawRequestHeaders: RawHeaders;
  readonly rawResponseHeaders: RawHeaders;
}

/** Parses one line against a compiled dataset; the error is one sentence without the line number. */
export type IngestLineParser = (line: string) => Result<IngestEvent, string>;

/** Bounds that keep one line from growing any value without limit. */
export interface IngestLimits {
  /** Most characters (UTF-16 code units, as JSON strings are counted in JavaScript) in any string value. */
  readonly maxStringLength: number;
  /** Most items in an array field. */
  readonly maxArrayItems: number;
  /** Most keys in an object field (`JA4Signals`). */
  readonly maxObjectKeys: number;
  /** Most characters in a key of an object field. */
  readonly maxObjectKeyLength: number;
  /** Most `[name, value]` pairs in each of `RawRequestHeaders` and `RawResponseHeaders`. */
  readonly maxHeaderPairs: number;
  /** Most characters in a raw header name. */
  readonly maxHeaderNameLength: number;
}

/** The bounds ingest applies unless configured otherwise. */
export const defaultIngestLimits: IngestLimits = Object.freeze({
  maxStringLength: 65_536,
  maxArrayItems: 1000,
  maxObjectKeys: 1000,
  maxObjectKeyLength: 256,
  maxHeaderPairs: 500,
  maxHeaderNameLength: 256,
});

/** The event key holding the request's raw headers. */
export const rawRequestHeadersKey = 'RawRequestHeaders';
/** The event key holding the response's raw headers. */
export const rawResponseHeadersKey = 'RawResponseHeaders';

/** How the value of one key of an ingest line is checked; built once per dataset. */
type FieldRule =
  | { readonly kind: 'string' | 'int' | 'float' | 'bool' | 'string[]' | 'int[]' | 'numberObject'; readonly name: string }
  | { readonly kind: 'timestamp'; readonly name: string; readonly needle: string }
  | { readonly kind: 'rawRequestHeaders' | 'rawResponseHeaders'; readonly name: string }
  | { readonly kind: 'customField'; readonly name: string };

interface CompiledDataset {
  /** Key → rule, in an object without a prototype: a property lookup is cheaper than a Map lookup here. */
  readonly rules: Readonly<Record<string, FieldRule | undefined>>;
  /** Lower-cased key → its right spelling, to suggest a fix when only the case is wrong. */
  readonly spellings: ReadonlyMap<string, string>;
  /** Fields whose values are JSON objects, inside which a timestamp's key text could appear as well. */
  readonly objectFields: readonly string[];
  readonly limits: IngestLimits;
}

const noHeaders: RawHeaders = Object.freeze([]);

/** Builds the per-dataset rule map once, and returns the line parser that uses it. */
export function compileIngestParser(dataset: Dataset, limits: IngestLimits = defaultIngestLimits): IngestLineParser {
  const rules = new Map<string, FieldRule>();
  const spellings = new Map<string, string>();
  const customFields: readonly string[] = customFieldNames;
  for (const field of dataset.fields) {
    rules.set(field.name, customFields.includes(field.name) ? { kind: 'customField', name: field.name } : ruleFor(field));
  }
  rules.set(rawRequestHeadersKey, { kind: 'rawRequestHeaders', name: rawRequestHeadersKey });
  rules.set(rawResponseHeadersKey, { kind: 'rawResponseHeaders', name: rawResponseHeadersKey });
  for (const name of rules.keys()) spellings.set(name.toLowerCase(), name);
  const objectFields = [...rules.values()].filter((rule) => rule.kind === 'numberObject').map((rule) => rule.name);
  const ruleTable = Object.create(null) as Record<string, FieldRule | undefined>;
  for (const [name, rule] of rules) ruleTable[name] = rule;
  const compiled: CompiledDataset = { rules: ruleTable, spellings, objectFields, limits };
  return (line) => parseWith(compiled, line);
}

function ruleFor(field: DatasetField): FieldRule {
  switch (field.type) {
    case 'timestamp':
      return { kind: 'timestamp', name: field.name, needle: JSON.stringify(field.name) };
    case 'object':
      return { kind: 'numberObject', name: field.name };
    case 'string':
    case 'int':
    case 'float':
    case 'bool':
    case 'string[]':
    case 'int[]':
      return { kind: field.type, name: field.name };
  }
}

const parsersByDataset = new WeakMap<Dataset, IngestLineParser>();

/** Parses one ingest line against `dataset` with the default limits (the compiled parser is cached per dataset). */
export function parseIngestLine(line: string, dataset: Dataset): Result<IngestEvent, string> {
  let parse = parsersByDataset.get(dataset);
  if (parse === undefined) {
    parse = compileIngestParser(dataset);
    parsersByDataset.set(dataset, parse);
  }
  return parse(line);
}

/**
 * Whether a line is blank (empty, or only spaces, tabs and a carriage return): ingest skips such lines
 * without counting them as events, though they still count in line numbers.
 */
export function isBlankIngestLine(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d && code !== 0x0a) return false;
  }
  return true;
}

function parseWith(compiled: CompiledDataset, line: string): Result<IngestEvent, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    return err(notJsonMessage(line, error));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return err(`the line must be a JSON object, got ${describeJson(parsed)}`);
  }
  // The parsed object becomes the record in place (nulls and raw headers deleted, timestamps rewritten):
  // copying every field into a fresh object would cost about as much again as the JSON.parse.
  const event = parsed as Record<string, unknown>;
  const { rules, limits } = compiled;
  let rawRequestHeaders = noHeaders;
  let rawResponseHeaders = noHeaders;
  // Keys to remove once every key is checked. They go last first: V8 undoes the addition of an object's
  // newest key cheaply, while deleting any other key turns the object into a slow dictionary, which
  // would make every later read of the record slower too. Raw headers usually come last in a line.
  let removed: string[] | undefined;
  for (const key in event) {
    const rule = rules[key];
    if (rule === undefined) return err(unknownFieldMessage(key, compiled.spellings));
    const value = event[key];
    if (value === null) {
      (removed ??= []).push(key);
      continue;
    }
    let problem: string | undefined;
    switch (rule.kind) {
      case 'string':
        problem = checkString(value, rule.name, limits);
        break;
      case 'int':
        problem = checkInt(value, rule.name);
        break;
      case 'float':
        problem = typeof value === 'number' && Number.isFinite(value) ? undefined : `"${rule.name}" must be a finite number, got ${describeJson(value)}`;
        break;
      case 'bool':
        problem = typeof value === 'boolean' ? undefined : `"${rule.name}" must be true or false, got ${describeJson(value)}`;
        break;
      case 'string[]':
        problem = checkStringArray(value, rule.name, limits);
        break;
      case 'int[]':
        problem = checkIntArray(value, rule.name, limits);
        break;
      case 'numberObject':
        problem = checkNumberObject(value, rule.name, limits);
        break;
      case 'timestamp': {
        const nanos = normalizeTimestamp(value, rule, line, hasNestedKey(event, rule.name, compiled.objectFields));
        if (!nanos.ok) return nanos;
        event[key] = nanos.value;
        break;
      }
      case 'rawRequestHeaders':
      case 'rawResponseHeaders':
        problem = checkRawHeaders(value, rule.name, limits);
        if (problem !== undefined) break;
        // Checked to be [string, string] pairs just above, so the parsed arrays are used as they are.
        if (rule.kind === 'rawRequestHeaders') rawRequestHeaders = value as RawHeaders;
        else rawResponseHeaders = value as RawHeaders;
        (removed ??= []).push(key);
        break;
      case 'customField':
        return err(customFieldMessage(rule.name));
    }
    if (problem !== undefined) return err(problem);
  }
  if (removed !== undefined) for (let i = removed.length - 1; i >= 0; i--) delete event[removed[i] as string];
  return ok({ record: event, rawRequestHeaders, rawResponseHeaders });
}

/** Whether an object field of the event (`JA4Signals`) also has the key `name`, so its text appears nested too. */
function hasNestedKey(event: Readonly<Record<string, unknown>>, name: string, objectFields: readonly string[]): boolean {
  for (const field of objectFields) {
    const value = event[field];
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, name)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Messages

const syntaxMessageLimit = 160;

function notJsonMessage(line: string, error: unknown): string {
  if (isBlankIngestLine(line)) return 'the line is empty (blank lines are skipped, not parsed)';
  // V8 quotes the input in its message: a long line must not become a long error, nor control characters
  // from it end up in one.
  const message = error instanceof Error ? error.message : String(error);
  let detail = '';
  for (let i = 0; i < message.length && i < syntaxMessageLimit; i++) {
    const code = message.charCodeAt(i);
    detail += code < 0x20 || code === 0x7f ? ' ' : message[i];
  }
  if (message.length > syntaxMessageLimit) detail += '…';
  return `the line is not valid JSON (${detail})`;
}

function unknownFieldMessage(key: string, spellings: ReadonlyMap<string, string>): string {
  const suggestion = spellings.get(key.toLowerCase());
  const hint = suggestion === undefined ? '' : ` (field names are case-sensitive: did you mean "${suggestion}"?)`;
  return `unknown field ${quote(key)}${hint}`;
}

function customFieldMessage(name: string): string {
  return (
    `"${name}" cannot be sent: ${customFieldNames.slice(0, -1).join(', ')} and ${customFieldNames.at(-1) ?? ''} are ` +
    `filled from ${rawRequestHeadersKey} and ` +
    `${rawResponseHeadersKey} by the zone's custom fields`
  );
}

// ---------------------------------------------------------------------------------------------------------
// Value checks: each returns undefined when the value is fine, so the common path allocates nothing.

function checkString(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (typeof value !== 'string') return `"${name}" must be a string, got ${describeJson(value)}`;
  if (value.length > limits.maxStringLength) return `"${name}" is longer than ${limits.maxStringLength} characters`;
  return undefined;
}

function checkInt(value: unknown, name: string): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return undefined;
  return `"${name}" ${intProblem(value)}`;
}

function intProblem(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value)) {
    return `must be an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, got ${String(value)}`;
  }
  return `must be an integer, got ${describeJson(value)}`;
}

function checkStringArray(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (!Array.isArray(value)) return `"${name}" must be an array of strings, got ${describeJson(value)}`;
  if (value.length > limits.maxArrayItems) return `"${name}" has more than ${limits.maxArrayItems} items`;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string') return `"${name}"[${i}] must be a string, got ${describeJson(item)}`;
    if (item.length > limits.maxStringLength) return `"${name}"[${i}] is longer than ${limits.maxStringLength} characters`;
  }
  return undefined;
}

function checkIntArray(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (!Array.isArray(value)) return `"${name}" must be an array of integers, got ${describeJson(value)}`;
  if (value.length > limits.maxArrayItems) return `"${name}" has more than ${limits.maxArrayItems} items`;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!(typeof item === 'number' && Number.isSafeInteger(item))) return `"${name}"[${i}] ${intProblem(item)}`;
  }
  return undefined;
}

function checkNumberObject(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `"${name}" must be an object of numbers, got ${describeJson(value)}`;
  }
  const object = value as Readonly<Record<string, unknown>>;
  const keys = Object.keys(object);
  if (keys.length > limits.maxObjectKeys) return `"${name}" has more than ${limits.maxObjectKeys} keys`;
  for (const key of keys) {
    if (key.length > limits.maxObjectKeyLength) {
      return `"${name}" key ${quote(key)} is longer than ${limits.maxObjectKeyLength} characters`;
    }
    const item = object[key];
    if (!(typeof item === 'number' && Number.isFinite(item))) {
      return `"${name}"[${quote(key)}] must be a finite number, got ${describeJson(item)}`;
    }
  }
  return undefined;
}

function checkRawHeaders(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (!Array.isArray(value)) {
    return `"${name}" must be an array of [name, value] pairs such as [["Host","example.com"]], got ${describeJson(value)}`;
  }
  if (value.length > limits.maxHeaderPairs) return `"${name}" has more than ${limits.maxHeaderPairs} headers`;
  for (let i = 0; i < value.length; i++) {
    const pair: unknown = value[i];
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      return `"${name}"[${i}] must be a [name, value] pair of two strings, got ${describePair(pair)}`;
    }
    const headerName: string = pair[0];
    const headerValue: string = pair[1];
    if (headerName.length === 0) return `"${name}"[${i}] has an empty header name`;
    if (headerName.length > limits.maxHeaderNameLength) {
      return `"${name}"[${i}] has a header name longer than ${limits.maxHeaderNameLength} characters`;
    }
    if (findNonTokenChar(headerName) >= 0) {
      return (
        `"${name}"[${i}] has the header name ${quote(headerName)}, which is not an HTTP token ` +
        `(letters, digits and ${tokenPunctuation})`
      );
    }
    if (headerValue.length > limits.maxStringLength) {
      return `"${name}"[${i}] has a value longer than ${limits.maxStringLength} characters`;
    }
  }
  return undefined;
}

function describePair(pair: unknown): string {
  if (!Array.isArray(pair)) return describeJson(pair);
  if (pair.length !== 2) return `an array of ${pair.length} item${pair.length === 1 ? '' : 's'}`;
  return `[${describeJson(pair[0])}, ${describeJson(pair[1])}]`;
}

// ---------------------------------------------------------------------------------------------------------
// Timestamps

const timestampForms = 'integer Unix nanoseconds or an RFC 3339 date-time such as 2017-09-29T16:28:24.433000200Z';
/** Longest digit string taken as nanoseconds; longer ones are past the range anyway, and not worth converting. */
const maxNanosDigits = 40;

/** Turns a timestamp value (nanoseconds as a number or digit string, or RFC 3339) into canonical nanosecond digits. */
function normalizeTimestamp(
  value: unknown,
  rule: { readonly name: string; readonly needle: string },
  line: string,
  nested: boolean,
): Result<string, string> {
  const name = rule.name;
  if (typeof value === 'number') return nanosFromNumber(value, rule, line, nested);
  if (typeof value !== 'string') return err(`"${name}" must be ${timestampForms}, got ${describeJson(value)}`);
  if (isDigits(value)) {
    if (value.length > maxNanosDigits) return err(afterRangeMessage(name));
    const digits = withoutLeadingZeros(value);
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
): Result<string, string> {
  if (value < 0) return err(`"${name}" must not be negative, got ${String(value)}`);
  // Also catches Infinity, which JSON.parse gives for literals such as 1e400.
  if (!(value <= maxTimestampDouble)) return err(afterRangeMessage(name));
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
