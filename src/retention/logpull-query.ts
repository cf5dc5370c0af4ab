/**
 * The query of `GET …/logs/received` (and of `…/logs/rayids/{ray_id}`), parsed once into what the reader
 * and the formatter need: the receive-time window, the fields, `count`, `sample`, `timestamps` and the
 * `CVE-2021-44228` redaction. Every problem names its parameter. Pure: the clock and the retention come in.
 */
import type { ErrorDetail } from '../core/app-error.ts';
import { err, ok, type Result } from '../core/result.ts';
import type { Dataset, DatasetField } from '../domain/datasets/http-requests.ts';
import { parseRfc3339Nanos } from '../domain/datasets/rfc3339-nanos.ts';
import type { TimestampFormat } from '../domain/jobs/output-options.ts';
import type { ReceiveWindow } from './retained-reader.ts';

/** The fields Logpull writes when `fields` is not given: the product's default set. */
export const logpullDefaultFields = ['ClientIP', 'ClientRequestHost', 'ClientRequestMethod', 'ClientRequestURI', 'EdgeEndTimestamp', 'EdgeResponseBytes', 'EdgeResponseStatus', 'EdgeStartTimestamp', 'RayID'] as const;

/** The longest window one call may ask for. */
export const maxWindowNs = 3_600_000_000_000n;

/** The smallest and largest `sample`. */
export const sampleBounds = { min: 0.01, max: 1 } as const;

const timestampChoices: readonly TimestampFormat[] = ['unix', 'unixnano', 'rfc3339'];
const cveKeys = ['CVE-2021-44228', 'CVE-2021-4428'];

/** What the output of a Logpull call is made of. */
export interface LogpullOutput {
  readonly fields: readonly DatasetField[];
  readonly count: number | undefined;
  readonly sample: number;
  readonly timestamps: TimestampFormat;
  readonly redact: boolean;
}

/** A parsed `received` query. */
export interface LogpullQuery extends LogpullOutput {
  readonly window: ReceiveWindow;
}

type Query = Readonly<Record<string, unknown>>;

function problem(parameter: string, message: string): ErrorDetail {
  return { message: `${parameter}: ${message}`, pointer: `/${parameter}` };
}

/** A time parameter as Unix nanoseconds: Unix seconds, Unix nanoseconds (12 digits or more) or RFC 3339. */
export function parseLogpullTime(text: string): bigint | undefined {
  if (/^\d{1,25}$/.test(text)) {
    const value = BigInt(text);
    return value < 1_000_000_000_000n ? value * 1_000_000_000n : value;
  }
  const parsed = parseRfc3339Nanos(text);
  return parsed.ok ? BigInt(parsed.value) : undefined;
}

function single(query: Query, name: string, problems: ErrorDetail[]): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    problems.push(problem(name, 'must be given once'));
    return undefined;
  }
  return value;
}

/** The output parameters shared by `received` and `rayids`: fields, timestamps, CVE-2021-44228 (and count, sample when allowed). */
export function parseLogpullOutput(query: Query, dataset: Dataset, allowed: readonly string[], problems: ErrorDetail[]): LogpullOutput {
  for (const key of Object.keys(query)) {
    if (!allowed.includes(key) && !cveKeys.includes(key)) problems.push(problem(key, `is not a parameter of this route (it takes ${[...allowed, cveKeys[0]].join(', ')})`));
  }
  let fields: DatasetField[] = logpullDefaultFields.flatMap((name) => dataset.field(name) ?? []);
  const fieldsText = single(query, 'fields', problems);
  if (fieldsText !== undefined) {
    const names = fieldsText.split(',');
    const unknown = names.filter((n) => dataset.field(n) === undefined);
    if (fieldsText === '' || names.some((n) => n === '')) problems.push(problem('fields', 'must be a comma-separated list of field names without spaces or empty entries'));
    else if (unknown.length > 0) problems.push(problem('fields', `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')}; GET …/logs/received/fields lists them`));
    else fields = [...new Set(names)].flatMap((name) => dataset.field(name) ?? []);
  }
  let count: number | undefined;
  const countText = single(query, 'count', problems);
  if (countText !== undefined) {
    if (!/^[1-9]\d{0,15}$/.test(countText) || !Number.isSafeInteger(Number(countText))) problems.push(problem('count', 'must be an integer greater than 0'));
    else count = Number(countText);
  }
  let sample = 1;
  const sampleText = single(query, 'sample', problems);
  if (sampleText !== undefined) {
    const rate = /^(\d+(\.\d*)?|\.\d+)$/.test(sampleText) ? Number(sampleText) : Number.NaN;
    if (!(rate >= sampleBounds.min && rate <= sampleBounds.max)) problems.push(problem('sample', `must be a number from ${sampleBounds.min} to ${sampleBounds.max}`));
    else sample = rate;
  }
  let timestamps: TimestampFormat = 'unixnano';
  const timestampsText = single(query, 'timestamps', problems);
  if (timestampsText !== undefined) {
    const chosen = timestampChoices.find((t) => t === timestampsText);
    if (chosen === undefined) problems.push(problem('timestamps', `must be one of ${timestampChoices.join(', ')}`));
    else timestamps = chosen;
  }
  let redact = false;
  for (const key of cveKeys) {
    const text = single(query, key, problems);
    if (text === undefined) continue;
    if (text !== 'true' && text !== 'false') problems.push(problem(key, 'must be true or false'));
    else redact = text === 'true';
  }
  return { fields, count, sample, timestamps, redact };
}

/**
 * Parses a `received` query: `start` inclusive and `end` exclusive, `end` after `start`, at most one hour
 * apart, `start` no older than the retention (`nowMs - retentionMs`).
 */
export function parseLogpullQuery(query: Query, dataset: Dataset, nowMs: number, retentionMs: number): Result<LogpullQuery, ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  const output = parseLogpullOutput(query, dataset, ['start', 'end', 'fields', 'count', 'sample', 'timestamps'], problems);
  const times: Partial<Record<'start' | 'end', bigint>> = {};
  for (const name of ['start', 'end'] as const) {
    const text = single(query, name, problems);
    if (text === undefined) {
      if (query[name] === undefined) problems.push(problem(name, 'is required: Unix seconds, Unix nanoseconds or RFC 3339'));
      continue;
    }
    const ns = parseLogpullTime(text);
    if (ns === undefined) problems.push(problem(name, `${JSON.stringify(text)} is not Unix seconds, Unix nanoseconds or an RFC 3339 time`));
    else times[name] = ns;
  }
  const { start, end } = times;
  if (start !== undefined && end !== undefined) {
    if (end <= start) problems.push(problem('end', 'must be later than start'));
    else if (end - start > maxWindowNs) problems.push(problem('end', 'must be at most one hour after start'));
    const oldest = BigInt(nowMs - retentionMs) * 1_000_000n;
    if (start < oldest) problems.push(problem('start', `is older than the retention of ${Math.round(retentionMs / 86_400_000)} days (the earliest start now is ${new Date(nowMs - retentionMs).toISOString()})`));
  }
  if (problems.length > 0 || start === undefined || end === undefined) return err(problems);
  return ok({ ...output, window: { startNs: start, endNs: end } });
}
