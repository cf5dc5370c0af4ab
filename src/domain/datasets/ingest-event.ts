/**
 * Parsing of one ingest line (one NDJSON request event) into the canonical record of event-record.ts and
 * the raw headers that custom-field capture reads. This runs for every ingested event, so the dataset is
 * compiled once into a map of field rules; a line then costs one JSON.parse, one map lookup per key and
 * a type check per value. The checks themselves are in field-values.ts (by field type), raw-headers.ts
 * and ingest-timestamp.ts (timestamps, whose exact digits above 2^53 ns come from the line text).
 */
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import { describeJson, quote } from '../filters/filter-problem.ts';
import { checkInt, checkIntArray, checkNumberObject, checkString, checkStringArray } from './field-values.ts';
import { customFieldNames } from './http-requests.ts';
import type { Dataset, DatasetField } from './http-requests.ts';
import { defaultIngestLimits } from './ingest-limits.ts';
import type { IngestLimits } from './ingest-limits.ts';
import { normalizeTimestamp, type TimestampText } from './ingest-timestamp.ts';
import { checkRawHeaders, rawRequestHeadersKey, rawResponseHeadersKey } from './raw-headers.ts';
import type { RawHeaders } from './raw-headers.ts';

/** One parsed ingest event: the canonical record (without custom-field maps) and the raw headers for capture. */
export interface IngestEvent {
  readonly record: Record<string, unknown>;
  readonly rawRequestHeaders: RawHeaders;
  readonly rawResponseHeaders: RawHeaders;
  /**
   * Whether the line writes every timestamp in its canonical form (digits of Unix nanoseconds), so the
   * line's text, read as JSON, is the record plus the raw headers. Absent: not known.
   */
  readonly timestampsAsSent?: boolean;
}

/** Parses one line against a compiled dataset; the error is one sentence without the line number. */
export interface IngestLineParser {
  (line: string): Result<IngestEvent, string>;
  /**
   * Checks an event object a source built itself (mapping its own format), exactly as a parsed line is
   * checked, and in place: what a line would cost to write and parse again is saved.
   */
  readonly check: (event: Record<string, unknown>, strings?: EventStrings) => Result<IngestEvent, string>;
}

/**
 * Where a source's strings came from: `'utf8'` when every string and key of the event was decoded from
 * UTF-8 bytes by a decoder that replaces what is not UTF-8 (Node's `Buffer#toString`), so none can hold a
 * lone surrogate and the search for one is skipped; `'any'` (the default) otherwise.
 */
export type EventStrings = 'any' | 'utf8';

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
/** What normalizeTimestamp says of the text of the timestamp it read last (parsing is synchronous, so one will do). */
const timestampText: TimestampText = { asSent: false };

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
  return Object.assign((line: string) => parseWith(compiled, line), { check: (event: Record<string, unknown>, strings: EventStrings = 'any') => checkWith(compiled, event, '', strings) });
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
  return checkWith(compiled, parsed as Record<string, unknown>, line);
}

/**
 * Checks an event object; `line` is the JSON text it was parsed from (empty for an object built otherwise),
 * where the exact digits of a timestamp number above 2^53 are found.
 */
function checkWith(compiled: CompiledDataset, event: Record<string, unknown>, line: string, strings: EventStrings = 'any'): Result<IngestEvent, string> {
  // The object becomes the record in place (nulls and raw headers deleted, timestamps rewritten):
  // copying every field into a fresh object would cost about as much again as the JSON.parse.
  const { rules, limits } = compiled;
  let rawRequestHeaders = noHeaders;
  let rawResponseHeaders = noHeaders;
  // Keys to remove once every key is checked. They go last first: V8 undoes the addition of an object's
  // newest key cheaply, while deleting any other key turns the object into a slow dictionary, which
  // would make every later read of the record slower too. Raw headers usually come last in a line.
  let removed: string[] | undefined;
  let timestampsAsSent = true;
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
        const nanos = normalizeTimestamp(value, rule, line, hasNestedKey(event, rule.name, compiled.objectFields), timestampText);
        if (!nanos.ok) return nanos;
        timestampsAsSent &&= timestampText.asSent;
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
  // A lone surrogate (`\ud800` without its pair) is no text: UTF-8 cannot hold it, so every output would
  // write something else, and the retained segments could not be read. A line can only hold one as an
  // escape, so a line without a backslash (the usual case) is not searched, nor an object of UTF-8 strings.
  if (strings === 'any' && (line === '' || line.indexOf('\\') !== -1)) {
    const field = fieldWithLoneSurrogate(event);
    if (field !== undefined) return err(`${quote(field)} holds a lone surrogate (an unpaired \\ud800–\\udfff escape), which is not text: send the character itself, or leave it out`);
  }
  if (removed !== undefined) for (let i = removed.length - 1; i >= 0; i--) delete event[removed[i] as string];
  // An object built by a source has no line its timestamps could be as sent in.
  return ok({ record: event, rawRequestHeaders, rawResponseHeaders, timestampsAsSent: timestampsAsSent && line !== '' });
}

/** The first field of the event with a lone surrogate anywhere in its value (strings, items, keys), if any. */
function fieldWithLoneSurrogate(event: Readonly<Record<string, unknown>>): string | undefined {
  for (const key in event) if (!isWellFormed(event[key])) return key;
  return undefined;
}

/** Whether every string in a checked value (a string, an array of them or of raw header pairs, an object of numbers) is well-formed UTF-16. */
function isWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return (value as unknown as WellFormedString).isWellFormed();
  if (Array.isArray(value)) return value.every(isWellFormed);
  if (typeof value === 'object' && value !== null) return Object.keys(value).every(isWellFormed);
  return true;
}

/** `String.prototype.isWellFormed` (Node 20; the project's TypeScript library is ES2023). Constant time for a one-byte string. */
interface WellFormedString {
  isWellFormed(): boolean;
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
