/**
 * An Instant Logs session: what a viewer asked to see of one zone (`fields`, `filter`, `sample`), who asked
 * (the session belongs to its zone and to the credential that made it), and the parsing of the request
 * that makes one. The filter, sampler and formatter are compiled with the job paths (ingest/live-tap.ts),
 * so a session accepts exactly the filters a job accepts, with the same limits and pointer errors.
 */
import type { ErrorDetail } from '../core/app-error.ts';
import { err, ok, type Result } from '../core/result.ts';
import { defaultFieldNames, type Dataset } from '../domain/datasets/http-requests.ts';
import type { FilterLimits } from '../domain/filters/parse-filter.ts';
import { compileLiveTap } from '../ingest/live-tap.ts';

/** Who made a session; a viewer may connect only while that credential may still read the zone's logs. */
export type LiveOwner =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'token'; readonly userId: string; readonly tokenHash: string };

/** A live session as every node knows it (it travels between nodes as JSON). */
export interface LiveSession {
  /** 32 lowercase hex characters; also the secret part of the viewer's address. */
  readonly id: string;
  readonly zoneId: string;
  readonly dataset: string;
  /** As sent (echoed by the API). */
  readonly fields: string;
  readonly fieldNames: readonly string[];
  /** As sent; null or "" for no filter. */
  readonly filter: string | null;
  readonly sample: number;
  readonly owner: LiveOwner;
  /** When it was made (ms since the Unix epoch). */
  readonly createdAt: number;
}

/** What a request asks for, checked. */
export interface LiveSessionInput {
  readonly fields: string;
  readonly fieldNames: readonly string[];
  readonly filter: string | null;
  readonly sample: number;
}

/** The fields of a session that names none: the dataset's default fields. */
export const defaultLiveFields = defaultFieldNames.join(',');

/** Largest `sample`: one record in a million. */
export const maxLiveSample = 1_000_000;
const maxFieldsLength = 4096;

function parseFields(value: unknown, dataset: Dataset, problems: ErrorDetail[]): { fields: string; fieldNames: string[] } | undefined {
  const fields = value === undefined || value === null || value === '' ? defaultLiveFields : value;
  if (typeof fields !== 'string') {
    problems.push({ message: 'fields must be a string of comma-separated field names, such as "ClientIP,RayID"', pointer: '/fields' });
    return undefined;
  }
  if (fields.length > maxFieldsLength) {
    problems.push({ message: `fields is ${fields.length} characters long; at most ${maxFieldsLength} are allowed`, pointer: '/fields' });
    return undefined;
  }
  const names = fields.split(',').map((n) => n.trim());
  const seen = new Set<string>();
  let bad = false;
  names.forEach((name, index) => {
    if (name === '') {
      problems.push({ message: `fields: entry ${index + 1} is empty; separate field names with single commas`, pointer: '/fields' });
      bad = true;
    } else if (dataset.field(name) === undefined) {
      const near = dataset.fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
      const hint = near === undefined ? '' : ` (field names are case-sensitive: did you mean "${near.name}"?)`;
      problems.push({ message: `fields: unknown field ${JSON.stringify(name.slice(0, 64))}; ${dataset.id} has no field of that name${hint}`, pointer: '/fields' });
      bad = true;
    } else if (seen.has(name)) {
      problems.push({ message: `fields: ${name} is named twice`, pointer: '/fields' });
      bad = true;
    }
    seen.add(name);
  });
  return bad ? undefined : { fields, fieldNames: names };
}

function parseSample(value: unknown, problems: ErrorDetail[]): number | undefined {
  if (value === undefined || value === null) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > maxLiveSample) {
    problems.push({
      message: `sample must be a whole number from 1 to ${maxLiveSample}: one record in that many is kept (1 keeps every record, 10 keeps 10%); got ${JSON.stringify(value)}`,
      pointer: '/sample',
    });
    return undefined;
  }
  return value;
}

/**
 * Checks the body of `POST …/edge/jobs`: `fields` (comma-separated dataset field names, custom-field
 * fields included; the default fields when left out), `filter` (the job filter language) and `sample`
 * (a whole number N ≥ 1: one record in N). Every problem carries the pointer of its key.
 */
export function parseLiveSessionInput(body: unknown, dataset: Dataset, filterLimits: FilterLimits): Result<LiveSessionInput, ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  const input = body === undefined || body === null ? {} : body;
  if (typeof input !== 'object' || Array.isArray(input)) return err([{ message: 'the body must be a JSON object such as {"fields": "ClientIP,RayID", "sample": 1}' }]);
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!['fields', 'filter', 'sample'].includes(key)) problems.push({ message: `unknown key ${JSON.stringify(key.slice(0, 64))}; an Instant Logs job has fields, filter and sample`, pointer: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` });
  }
  const fields = parseFields(record.fields, dataset, problems);
  const sample = parseSample(record.sample, problems);
  const rawFilter = record.filter ?? null;
  let filter: string | null = null;
  if (typeof rawFilter === 'string') filter = rawFilter;
  else if (rawFilter !== null) problems.push({ message: 'filter must be a string holding JSON, such as "{\\"where\\":{\\"key\\":\\"ClientCountry\\",\\"operator\\":\\"eq\\",\\"value\\":\\"ca\\"}}"', pointer: '/filter' });
  if (fields === undefined || sample === undefined || problems.length > 0) {
    // The filter is checked too, so one answer names every problem.
    if (typeof rawFilter === 'string') {
      const compiled = compileLiveTap({ sessionId: '', fieldNames: [], filter, sample: 1, limit: 1 }, dataset, filterLimits);
      if (!compiled.ok) problems.push(compiled.error);
    }
    return err(problems);
  }
  const compiled = compileLiveTap({ sessionId: '', fieldNames: fields.fieldNames, filter, sample, limit: 1 }, dataset, filterLimits);
  if (!compiled.ok) return err([compiled.error]);
  return ok({ fields: fields.fields, fieldNames: fields.fieldNames, filter, sample });
}
