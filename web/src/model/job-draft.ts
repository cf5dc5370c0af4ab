/**
 * The Add/Edit job wizard's state, made from a stored job (edit) or from defaults (add), and turned
 * into the body of `POST …/jobs` or `PUT …/jobs/{id}`.
 */
import type { Job } from '../api/job.ts';
import { draftFromFilter, emptyFilterDraft, type GroupDraft } from './filter-draft.ts';

/** How timestamps are written; the API's `timestamp_format` values. */
export const timestampFormats: readonly { readonly value: string; readonly label: string }[] = [
  { value: 'unixnano', label: 'Unix nanoseconds (unixnano)' },
  { value: 'unix', label: 'Unix seconds (unix)' },
  { value: 'rfc3339', label: 'RFC 3339, seconds (rfc3339)' },
  { value: 'rfc3339ms', label: 'RFC 3339, milliseconds (rfc3339ms)' },
  { value: 'rfc3339ns', label: 'RFC 3339, nanoseconds (rfc3339ns)' },
];

/** Everything the wizard edits. Text inputs keep their text until the body is built. */
export interface JobDraft {
  readonly name: string;
  readonly dataset: string;
  readonly fieldNames: readonly string[];
  readonly filter: GroupDraft;
  /** The stored filter, sent back unchanged unless the builder was used. */
  readonly storedFilter: string | null;
  readonly filterEdited: boolean;
  readonly destinationConf: string;
  readonly ownershipChallenge: string;
  readonly outputType: 'ndjson' | 'csv';
  readonly timestampFormat: string;
  readonly sampleRate: string;
  readonly cve202144228: boolean;
  readonly enabled: boolean;
}

const cveKey = 'CVE-2021-44228';

/**
 * A new job's draft: the dataset's default fields and the fields holding the zone's captured custom fields
 * (`customFieldMaps`: `RequestHeaders`, … — a zone that set up custom fields wants them exported), no
 * filter, NDJSON, RFC 3339 times, every record.
 */
export function newJobDraft(defaultFields: readonly string[], customFieldMaps: readonly string[] = []): JobDraft {
  return {
    name: '',
    dataset: 'http_requests',
    fieldNames: [...defaultFields, ...customFieldMaps.filter((f) => !defaultFields.includes(f))],
    filter: emptyFilterDraft(),
    storedFilter: null,
    filterEdited: false,
    destinationConf: '',
    ownershipChallenge: '',
    outputType: 'ndjson',
    timestampFormat: 'rfc3339',
    sampleRate: '1',
    cve202144228: false,
    enabled: true,
  };
}

function stringOption(options: Readonly<Record<string, unknown>>, key: string, fallback: string): string {
  const v = options[key];
  return typeof v === 'string' ? v : fallback;
}

/** The draft of a stored job; its destination is the masked one the API shows. */
export function jobDraftOf(job: Job): JobDraft {
  const options = job.output_options ?? {};
  const fields = options.field_names;
  const rate = options.sample_rate;
  return {
    name: job.name ?? '',
    dataset: job.dataset,
    fieldNames: Array.isArray(fields) ? fields.filter((f): f is string => typeof f === 'string') : [],
    filter: draftFromFilter(job.filter) ?? emptyFilterDraft(),
    storedFilter: job.filter,
    filterEdited: false,
    destinationConf: job.destination_conf,
    ownershipChallenge: '',
    outputType: options.output_type === 'csv' ? 'csv' : 'ndjson',
    timestampFormat: stringOption(options, 'timestamp_format', 'unixnano'),
    sampleRate: typeof rate === 'number' ? String(rate) : '1',
    cve202144228: options[cveKey] === true || options['CVE-2021-4428'] === true,
    enabled: job.enabled,
  };
}

/**
 * Whether logexport must see an ownership token for this destination before a job may use it:
 * files always, S3 unless the conf carries its own keys (docs/destinations.md).
 */
export function needsOwnership(destinationConf: string): boolean {
  const conf = destinationConf.trim();
  if (conf.startsWith('file://')) return true;
  if (!conf.startsWith('s3://')) return false;
  const query = conf.includes('?') ? new URLSearchParams(conf.slice(conf.indexOf('?') + 1)) : new URLSearchParams();
  return !(query.has('access-key-id') && query.has('secret-access-key'));
}

/**
 * The request body for the draft. `filter` is the builder's filter string (null: no filter). On edit,
 * keys of `output_options` the wizard does not manage are kept, and an unchanged destination is not
 * sent, so it needs no new ownership proof.
 */
export function jobBody(draft: JobDraft, filter: string | null, original: Job | undefined): Record<string, unknown> {
  const outputOptions: Record<string, unknown> = {
    ...(original?.output_options ?? {}),
    field_names: draft.fieldNames,
    output_type: draft.outputType,
    timestamp_format: draft.timestampFormat,
    sample_rate: Number(draft.sampleRate),
    [cveKey]: draft.cve202144228,
  };
  delete outputOptions['CVE-2021-4428'];
  const body: Record<string, unknown> = {
    name: draft.name.trim() === '' ? null : draft.name.trim(),
    filter: original !== undefined && !draft.filterEdited ? draft.storedFilter : filter,
    output_options: outputOptions,
    enabled: draft.enabled,
  };
  if (original === undefined) body.dataset = draft.dataset;
  if (original === undefined || draft.destinationConf !== original.destination_conf) {
    body.destination_conf = draft.destinationConf.trim();
  }
  if (draft.ownershipChallenge.trim() !== '') body.ownership_challenge = draft.ownershipChallenge.trim();
  return body;
}
