/**
 * A job body as a client sends it to create or update a log export job: every key checked for its type
 * and range, unknown keys refused. What the keys mean together (fields, filter, destination) is checked
 * by compiling the merged settings into a plan (ingest/job-plan.ts), the same code the runners use.
 */
import type { ErrorDetail } from '../../core/app-error.ts';
import { err, ok, type Result } from '../../core/result.ts';
import type { JobSettings } from './job-settings.ts';
import { findDataset, datasetIds } from '../datasets/http-requests.ts';
import { maxDestinationConfLength } from './destination-conf.ts';
import { maxOwnershipTokenLength, ownershipTokenPattern } from './ownership.ts';

/** The settings a body sets, and the ownership challenge it carries. */
export interface JobInput {
  readonly settings: Partial<JobSettings>;
  readonly ownershipChallenge: string | undefined;
}

/** Ranges of the batch limits; 0 means "the run-time default". */
export const uploadLimits = {
  max_upload_bytes: { min: 5_000_000, max: 1_000_000_000 },
  max_upload_records: { min: 1_000, max: 1_000_000 },
  max_upload_interval_seconds: { min: 30, max: 300 },
} as const;

const settable = [
  'name',
  'dataset',
  'kind',
  'enabled',
  'destination_conf',
  'ownership_challenge',
  'filter',
  'output_options',
  'logpull_options',
  'frequency',
  'max_upload_bytes',
  'max_upload_records',
  'max_upload_interval_seconds',
  'filter_attack_traffic',
] as const;

/** Read-only fields a client may send back as it read them; they are ignored. */
const readOnly = ['id', 'last_complete', 'last_error', 'error_message', 'created_at', 'updated_at'];

const namePattern = /^[a-zA-Z0-9.-]*$/;
const maxNameLength = 512;
const maxLogpullLength = 4096;

/**
 * Parses a create (`mode: 'create'`) or update body. On create, `destination_conf` is required and unset
 * keys take their stored defaults (disabled, dataset http_requests, kind ""); an update changes only
 * the keys it sends.
 */
export function parseJobInput(body: unknown, mode: 'create' | 'update'): Result<JobInput, ErrorDetail[]> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return err([{ message: 'The request body must be a JSON object describing the job', pointer: '' }]);
  }
  const input = body as Readonly<Record<string, unknown>>;
  const problems: ErrorDetail[] = [];
  const problem = (key: string, message: string) => problems.push({ message, pointer: `/${key}` });
  const has = (key: string) => Object.prototype.hasOwnProperty.call(input, key);

  for (const key of Object.keys(input)) {
    if (!(settable as readonly string[]).includes(key) && !readOnly.includes(key)) {
      problem(key, `unknown field "${key}"; a job has ${settable.join(', ')}`);
    }
  }

  const settings: { -readonly [K in keyof JobSettings]?: JobSettings[K] } = {};

  if (has('name')) {
    const v = input.name;
    if (v === null) settings.name = null;
    else if (typeof v !== 'string') problem('name', 'name must be a string');
    else if (v.length > maxNameLength) problem('name', `name must have at most ${maxNameLength} characters`);
    else if (!namePattern.test(v)) problem('name', 'name may only contain letters, digits, "-" and "."');
    else settings.name = v;
  }

  if (has('dataset') && input.dataset !== null) {
    const v = input.dataset;
    if (typeof v !== 'string' || findDataset(v) === undefined) {
      problem('dataset', `dataset ${JSON.stringify(v)} is not served; logexport exports ${datasetIds.join(', ')}`);
    } else settings.dataset = v;
  } else if (mode === 'create') settings.dataset = 'http_requests';

  if (has('kind') && input.kind !== null) {
    const v = input.kind;
    if (v !== '') problem('kind', `kind ${JSON.stringify(v)} is not supported; logexport runs push jobs (kind "")`);
    else settings.kind = '';
  } else if (mode === 'create') settings.kind = '';

  if (has('enabled') && input.enabled !== null) {
    if (typeof input.enabled !== 'boolean') problem('enabled', 'enabled must be true or false');
    else settings.enabled = input.enabled;
  } else if (mode === 'create') settings.enabled = false;

  if (has('destination_conf')) {
    const v = input.destination_conf;
    if (typeof v !== 'string' || v === '') problem('destination_conf', 'destination_conf must be a destination such as file:///logs or s3://bucket/path?region=us-east-1');
    else if (v.length > maxDestinationConfLength) problem('destination_conf', `destination_conf must have at most ${maxDestinationConfLength} characters`);
    else settings.destinationConf = v;
  } else if (mode === 'create') problem('destination_conf', 'destination_conf is required');

  let ownershipChallenge: string | undefined;
  if (has('ownership_challenge') && input.ownership_challenge !== null && input.ownership_challenge !== '') {
    const v = input.ownership_challenge;
    if (typeof v !== 'string' || v.length > maxOwnershipTokenLength || !ownershipTokenPattern.test(v)) {
      problem('ownership_challenge', 'ownership_challenge must be the token from the challenge file');
    } else ownershipChallenge = v;
  }

  // The filter's size limit is configurable (LOGEXPORT_FILTER_MAX_BYTES) and checked where the filter is
  // parsed, so its message names the configured limit; the API body limit bounds what reaches here.
  if (has('filter')) {
    const v = input.filter;
    if (v === null) settings.filter = null;
    else if (typeof v !== 'string') problem('filter', 'filter must be a string holding JSON such as {"where":{"key":"ClientCountry","operator":"eq","value":"ca"}}');
    else settings.filter = v;
  }

  if (has('output_options')) {
    const v = input.output_options;
    if (v === null) settings.outputOptions = null;
    else if (typeof v !== 'object' || Array.isArray(v)) problem('output_options', 'output_options must be an object');
    else settings.outputOptions = JSON.stringify(v);
  }

  if (has('logpull_options')) {
    const v = input.logpull_options;
    if (v === null) settings.logpullOptions = null;
    else if (typeof v !== 'string') problem('logpull_options', 'logpull_options must be a string such as fields=RayID,ClientIP&timestamps=rfc3339');
    else if (v.length > maxLogpullLength) problem('logpull_options', `logpull_options must have at most ${maxLogpullLength} characters`);
    else settings.logpullOptions = v;
  }

  if (has('frequency')) {
    const v = input.frequency;
    if (v === null) settings.frequency = null;
    else if (v !== 'high' && v !== 'low') problem('frequency', 'frequency must be "high" or "low" (it is deprecated: use the max_upload_* limits)');
    else settings.frequency = v;
  }

  const limitKeys = {
    max_upload_bytes: 'maxUploadBytes',
    max_upload_records: 'maxUploadRecords',
    max_upload_interval_seconds: 'maxUploadIntervalSeconds',
  } as const;
  for (const key of Object.keys(limitKeys) as (keyof typeof limitKeys)[]) {
    if (!has(key)) continue;
    const v = input[key];
    const range = uploadLimits[key];
    if (v === null) settings[limitKeys[key]] = null;
    else if (typeof v !== 'number' || !Number.isInteger(v) || (v !== 0 && (v < range.min || v > range.max))) {
      problem(key, `${key} must be 0 (the default) or an integer from ${range.min} to ${range.max}`);
    } else settings[limitKeys[key]] = v;
  }

  if (has('filter_attack_traffic') && input.filter_attack_traffic !== null && input.filter_attack_traffic !== false) {
    problem('filter_attack_traffic', 'filter_attack_traffic is not supported: logexport does not classify attack traffic');
  }

  return problems.length > 0 ? err(problems) : ok({ settings, ownershipChallenge });
}
