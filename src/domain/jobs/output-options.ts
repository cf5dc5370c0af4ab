/**
 * A job's output settings: `output_options` (the structured form) and `logpull_options` (the deprecated
 * URL-query form) parsed into one typed `OutputOptions`, and the `OutputPlan` a runner formats with.
 *
 * Parsing keeps only what the client set (a key sent as null is unset), so the API can echo the job as
 * stored; every default is applied in `resolveOutputPlan`, at run time.
 */
import type { ErrorDetail } from '../../core/app-error.ts';
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import type { Dataset } from '../datasets/http-requests.ts';
import { parseRecordTemplate } from './record-template.ts';
import type { RecordTemplate } from './record-template.ts';

/** The record layouts a job can write. */
export type OutputType = 'ndjson' | 'csv';

/** How `timestamp` fields are written: Unix nanoseconds or seconds (bare integers) or RFC 3339 strings. */
export type TimestampFormat = 'unixnano' | 'unix' | 'rfc3339' | 'rfc3339ms' | 'rfc3339ns';

export const outputTypes: readonly OutputType[] = ['ndjson', 'csv'];
export const timestampFormats: readonly TimestampFormat[] = ['unixnano', 'unix', 'rfc3339', 'rfc3339ms', 'rfc3339ns'];
const logpullTimestampFormats: readonly TimestampFormat[] = ['unixnano', 'unix', 'rfc3339'];

/** Size limits on output settings; body-size limits alone would allow megabyte prefixes. */
export const outputOptionLimits = {
  /** Longest accepted prefix, suffix, delimiter or template, in characters. */
  stringLength: 4096,
  /** Longest accepted `logpull_options` string, in characters. */
  logpullLength: 4096,
  /** At most this many problems are reported for one value; the rest are counted. */
  reportedProblems: 20,
} as const;

/** Output settings as the client set them; a key the client left unset (or null) is absent. */
export interface OutputOptions {
  readonly fieldNames?: readonly string[];
  readonly outputType?: OutputType;
  readonly batchPrefix?: string;
  readonly batchSuffix?: string;
  readonly recordPrefix?: string;
  readonly recordSuffix?: string;
  readonly recordDelimiter?: string;
  readonly fieldDelimiter?: string;
  readonly recordTemplate?: RecordTemplate;
  readonly timestampFormat?: TimestampFormat;
  readonly sampleRate?: number;
  /** `CVE-2021-44228`: write `x{` for every `${` in the output. */
  readonly redactCve202144228?: boolean;
}

/** What a job runs with: the chosen options with every default filled in. */
export interface OutputPlan {
  /** Fields to write, in order; empty means the job cannot run (see `hasFieldNames`). */
  readonly fieldNames: readonly string[];
  readonly outputType: OutputType;
  readonly batchPrefix: string;
  readonly batchSuffix: string;
  readonly recordPrefix: string;
  readonly recordSuffix: string;
  readonly recordDelimiter: string;
  readonly fieldDelimiter: string;
  /** The template that replaces the field list, or null (also for an empty `record_template`). */
  readonly recordTemplate: RecordTemplate | null;
  readonly timestampFormat: TimestampFormat;
  readonly sampleRate: number;
  readonly redactCve202144228: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const stringKeys = {
  batch_prefix: 'batchPrefix',
  batch_suffix: 'batchSuffix',
  record_prefix: 'recordPrefix',
  record_suffix: 'recordSuffix',
  record_delimiter: 'recordDelimiter',
  field_delimiter: 'fieldDelimiter',
} as const satisfies Record<string, keyof OutputOptions>;

const cveKey = 'CVE-2021-44228';
// The typo spelling used by an older published schema and early Terraform releases.
const cveTypoKey = 'CVE-2021-4428';

const outputOptionKeys: ReadonlySet<string> = new Set([
  'field_names', 'output_type', ...Object.keys(stringKeys), 'record_template', 'timestamp_format', 'sample_rate',
  cveKey, cveTypoKey, 'merge_subrequests',
]);

/** A JSON pointer token for an object key (RFC 6901 escaping). */
function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A client-supplied name quoted for a message, cut short so a huge name cannot flood the answer. */
function quoted(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Caps the number of reported problems so one bad body cannot produce an unbounded error list. */
function capped(errors: readonly ErrorDetail[]): ErrorDetail[] {
  const max = outputOptionLimits.reportedProblems;
  if (errors.length <= max) return [...errors];
  return [...errors.slice(0, max), { message: `…and ${errors.length - max} more problems` }];
}

/**
 * Checks a list of field names against the dataset: each a known field, none twice, no more than the
 * catalogue holds. `pointerAt(i)` names the entry in error details.
 */
function checkFieldNames(
  names: readonly unknown[],
  dataset: Dataset,
  listName: string,
  pointerAt: (index: number) => string,
  errors: ErrorDetail[],
): readonly string[] {
  if (names.length > dataset.fields.length) {
    errors.push({ message: `${listName} lists ${names.length} fields; dataset ${dataset.id} has only ${dataset.fields.length}`, pointer: pointerAt(-1) });
    return [];
  }
  const seen = new Set<string>();
  const out: string[] = [];
  names.forEach((name, i) => {
    if (typeof name !== 'string') {
      errors.push({ message: `${listName} entries must be field names (strings)`, pointer: pointerAt(i) });
    } else if (dataset.field(name) === undefined) {
      errors.push({ message: `unknown field ${quoted(name)} in ${listName} for dataset ${dataset.id}`, pointer: pointerAt(i) });
    } else if (seen.has(name)) {
      errors.push({ message: `field ${quoted(name)} is listed more than once in ${listName}`, pointer: pointerAt(i) });
    } else {
      seen.add(name);
      out.push(name);
    }
  });
  return out;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((a) => a === value);
}

/**
 * Parses a job's `output_options` as a client sent it; null or undefined → null (unset).
 * Error pointers are relative to the job body (`/output_options/...`).
 */
export function parseOutputOptions(value: unknown, dataset: Dataset): Result<OutputOptions | null, ErrorDetail[]> {
  if (value === null || value === undefined) return ok(null);
  const base = '/output_options';
  if (!isPlainObject(value)) return err([{ message: 'output_options must be an object or null', pointer: base }]);

  const errors: ErrorDetail[] = [];
  const options: Mutable<OutputOptions> = {};
  const at = (key: string): string => `${base}/${pointerToken(key)}`;
  const cve: { key: string; value: boolean }[] = [];

  for (const [key, v] of Object.entries(value)) {
    if (!outputOptionKeys.has(key)) {
      errors.push({ message: `unknown key ${quoted(key)} in output_options`, pointer: at(key) });
      continue;
    }
    // Terraform sends every attribute it knows, with null for the ones the user did not set.
    if (v === null) continue;
    switch (key) {
      case 'field_names':
        if (!Array.isArray(v)) {
          errors.push({ message: 'field_names must be an array of field names', pointer: at(key) });
        } else if (v.length === 0) {
          errors.push({ message: 'field_names must name at least one field', pointer: at(key) });
        } else {
          options.fieldNames = checkFieldNames(v, dataset, 'field_names', (i) => (i < 0 ? at(key) : `${at(key)}/${i}`), errors);
        }
        break;
      case 'output_type': {
        const type = oneOf(v, outputTypes);
        if (type === undefined) errors.push({ message: `output_type must be one of ${outputTypes.join(', ')}`, pointer: at(key) });
        else options.outputType = type;
        break;
      }
      case 'timestamp_format': {
        const format = oneOf(v, timestampFormats);
        if (format === undefined) errors.push({ message: `timestamp_format must be one of ${timestampFormats.join(', ')}`, pointer: at(key) });
        else options.timestampFormat = format;
        break;
      }
      case 'sample_rate':
        if (typeof v !== 'number' || !(v > 0 && v <= 1)) {
          errors.push({ message: 'sample_rate must be a number greater than 0 and at most 1', pointer: at(key) });
        } else {
          options.sampleRate = v;
        }
        break;
      case 'record_template': {
        const text = checkString(key, v, at(key), errors);
        if (text === undefined) break;
        const template = parseRecordTemplate(text, dataset);
        if (template.ok) options.recordTemplate = template.value;
        else errors.push({ message: `record_template: ${template.error.message} (at offset ${template.error.offset})`, pointer: at(key) });
        break;
      }
      case cveKey:
      case cveTypoKey: {
        const flag = parseBooleanFlag(v);
        if (flag === undefined) errors.push({ message: `${key} must be true or false`, pointer: at(key) });
        else cve.push({ key, value: flag });
        break;
      }
      case 'merge_subrequests':
        if (v !== false) errors.push({ message: 'merge_subrequests is not supported; leave it false or null', pointer: at(key) });
        break;
      default: {
        const field = stringKeys[key as keyof typeof stringKeys];
        const text = checkString(key, v, at(key), errors);
        if (text !== undefined) options[field] = text;
      }
    }
  }

  const [first, second] = cve;
  if (first !== undefined && second !== undefined && first.value !== second.value) {
    errors.push({ message: `${cveKey} and ${cveTypoKey} are two spellings of one option and were given different values`, pointer: at(second.key) });
  } else if (first !== undefined) {
    options.redactCve202144228 = first.value;
  }

  if (value['field_names'] === undefined || value['field_names'] === null) {
    errors.push({ message: 'field_names is required when output_options is set', pointer: at('field_names') });
  }
  return errors.length > 0 ? err(capped(errors)) : ok(options);
}

function checkString(key: string, v: unknown, pointer: string, errors: ErrorDetail[]): string | undefined {
  if (typeof v !== 'string') {
    errors.push({ message: `${key} must be a string`, pointer });
    return undefined;
  }
  if (v.length > outputOptionLimits.stringLength) {
    errors.push({ message: `${key} is longer than ${outputOptionLimits.stringLength} characters`, pointer });
    return undefined;
  }
  return v;
}

// The service description shows the CVE option with the value written as a string, so the strings
// "true" and "false" are taken as well as JSON booleans.
function parseBooleanFlag(v: unknown): boolean | undefined {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return undefined;
}

/**
 * Parses the deprecated `logpull_options` query string (e.g. `fields=RayID,ClientIP&timestamps=rfc3339`);
 * null, undefined or "" → null. A full Logpull URL is accepted too: only its query is read, and its
 * `start`/`end` are ignored because the job chooses its own time range. Every error points at `/logpull_options`.
 */
export function parseLogpullOptions(value: unknown, dataset: Dataset): Result<OutputOptions | null, ErrorDetail[]> {
  if (value === null || value === undefined || value === '') return ok(null);
  const pointer = '/logpull_options';
  if (typeof value !== 'string') return err([{ message: 'logpull_options must be a string or null', pointer }]);
  if (value.length > outputOptionLimits.logpullLength) {
    return err([{ message: `logpull_options is longer than ${outputOptionLimits.logpullLength} characters`, pointer }]);
  }

  const queryStart = value.indexOf('?');
  const query = queryStart === -1 ? value : value.slice(queryStart + 1);
  const errors: ErrorDetail[] = [];
  const options: Mutable<OutputOptions> = {};
  const seen = new Set<string>();

  for (const [key, v] of new URLSearchParams(query)) {
    if (seen.has(key)) {
      errors.push({ message: `logpull_options gives ${quoted(key)} more than once`, pointer });
      continue;
    }
    seen.add(key);
    switch (key) {
      case 'fields': {
        const names = v.split(',').map((n) => n.trim());
        if (names.some((n) => n === '')) {
          errors.push({ message: 'logpull_options fields must be a comma-separated list of field names without empty entries', pointer });
        } else {
          options.fieldNames = checkFieldNames(names, dataset, 'logpull_options fields', () => pointer, errors);
        }
        break;
      }
      case 'timestamps': {
        const format = oneOf(v, logpullTimestampFormats);
        if (format === undefined) errors.push({ message: `logpull_options timestamps must be one of ${logpullTimestampFormats.join(', ')}`, pointer });
        else options.timestampFormat = format;
        break;
      }
      case 'sample': {
        const rate = /^(\d+(\.\d*)?|\.\d+)$/.test(v) ? Number(v) : Number.NaN;
        if (!(rate > 0 && rate <= 1)) errors.push({ message: 'logpull_options sample must be a number greater than 0 and at most 1', pointer });
        else options.sampleRate = rate;
        break;
      }
      case cveKey: {
        const flag = parseBooleanFlag(v);
        if (flag === undefined) errors.push({ message: `logpull_options ${cveKey} must be true or false`, pointer });
        else options.redactCve202144228 = flag;
        break;
      }
      case 'start':
      case 'end':
        break;
      default:
        errors.push({ message: `unknown key ${quoted(key)} in logpull_options`, pointer });
    }
  }
  return errors.length > 0 ? err(capped(errors)) : ok(options);
}

interface LayoutDefaults {
  readonly recordPrefix: string;
  readonly recordSuffix: string;
  readonly fieldDelimiter: string;
}

function layoutDefaults(type: OutputType): LayoutDefaults {
  switch (type) {
    case 'ndjson':
      return { recordPrefix: '{', recordSuffix: '}\n', fieldDelimiter: ',' };
    case 'csv':
      return { recordPrefix: '', recordSuffix: '\n', fieldDelimiter: ',' };
  }
}

/**
 * The plan a job runs with: `output_options` when set, otherwise `logpull_options`, with every default
 * applied. The plan may have no field names (neither form named any); callers refuse such a job with
 * `hasFieldNames` before storing it.
 */
export function resolveOutputPlan(outputOptions: OutputOptions | null, logpullOptions: OutputOptions | null): OutputPlan {
  const chosen: OutputOptions = outputOptions ?? logpullOptions ?? {};
  const outputType = chosen.outputType ?? 'ndjson';
  const defaults = layoutDefaults(outputType);
  const template = chosen.recordTemplate;
  return {
    fieldNames: chosen.fieldNames ?? [],
    outputType,
    batchPrefix: chosen.batchPrefix ?? '',
    batchSuffix: chosen.batchSuffix ?? '',
    recordPrefix: chosen.recordPrefix ?? defaults.recordPrefix,
    recordSuffix: chosen.recordSuffix ?? defaults.recordSuffix,
    recordDelimiter: chosen.recordDelimiter ?? '',
    fieldDelimiter: chosen.fieldDelimiter ?? defaults.fieldDelimiter,
    recordTemplate: template === undefined || template.source === '' ? null : template,
    timestampFormat: chosen.timestampFormat ?? 'unixnano',
    sampleRate: chosen.sampleRate ?? 1,
    redactCve202144228: chosen.redactCve202144228 ?? false,
  };
}

/** Whether a plan names at least one field; a job whose plan does not is refused (it would write nothing useful). */
export function hasFieldNames(plan: OutputPlan): boolean {
  return plan.fieldNames.length > 0;
}
