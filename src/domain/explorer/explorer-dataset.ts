/**
 * A Log Explorer dataset: which of a zone's events (its `filter`, in the job filter language) and which
 * fields (`fields`) the zone keeps for SQL. The official client names fields in lower case; logexport
 * accepts any case, stores the catalogue's names and answers in lower case. Parsing the create and update
 * bodies lives here so the API, the store and ingest agree on one shape. Pure.
 */
import type { ErrorDetail } from '../../core/app-error.ts';
import { err, ok, type Result } from '../../core/result.ts';
import { datasetIds, findDataset, type Dataset } from '../datasets/http-requests.ts';
import { parseFilter, type FilterLimits } from '../filters/parse-filter.ts';

/** The primary timestamp field of every served dataset (what Log Explorer's queries bound by time). */
export const explorerTimestampField = 'EdgeStartTimestamp';

/** A dataset as the store keeps it. */
export interface ExplorerDataset {
  /** 32 lower-case hex digits. */
  readonly id: string;
  readonly zoneId: string;
  /** The dataset type (`http_requests`). */
  readonly dataset: string;
  readonly enabled: boolean;
  /** The catalogue names of the kept fields, in catalogue order; null keeps every field. */
  readonly fields: readonly string[] | null;
  /** The filter document as sent (job filter language); null keeps every event. */
  readonly filter: string | null;
  readonly deletionProtection: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What a create or update body sets; an update leaves out what it does not change. */
export interface ExplorerDatasetChanges {
  readonly dataset?: string;
  readonly enabled?: boolean;
  readonly fields?: readonly string[] | null;
  readonly filter?: string | null;
  readonly deletionProtection?: boolean;
}

type Body = Readonly<Record<string, unknown>>;

const createKeys = ['dataset', 'enabled', 'fields', 'filter', 'filter_attack_traffic', 'deletion_protection'];
const updateKeys = ['enabled', 'fields', 'filter', 'filter_attack_traffic', 'deletion_protection'];

function unknownKeys(body: Body, allowed: readonly string[]): ErrorDetail[] {
  return Object.keys(body)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ message: `unknown field "${key}"; expected ${allowed.join(', ')}`, pointer: `/${key}` }));
}

/**
 * The kept fields named by a body's `fields` (`[{name, enabled}]`): null when every field is enabled (the
 * dataset then keeps fields added to the catalogue later too).
 */
function fieldsOf(value: unknown, dataset: Dataset, problems: ErrorDetail[]): readonly string[] | null | undefined {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    problems.push({ message: 'fields must be an array of {"name": "<field>", "enabled": true|false}', pointer: '/fields' });
    return undefined;
  }
  const byLowerName = new Map(dataset.fields.map((f) => [f.name.toLowerCase(), f.name] as const));
  const choice = new Map<string, boolean>();
  value.forEach((item: unknown, i) => {
    const pointer = `/fields/${i}`;
    const entry = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Body) : undefined;
    if (entry === undefined || typeof entry.name !== 'string' || typeof entry.enabled !== 'boolean' || Object.keys(entry).some((k) => k !== 'name' && k !== 'enabled')) {
      problems.push({ message: 'each field must be {"name": "<field>", "enabled": true|false}', pointer });
      return;
    }
    const name = byLowerName.get(entry.name.toLowerCase());
    if (name === undefined) {
      problems.push({ message: `unknown field "${entry.name.slice(0, 80)}" of dataset ${dataset.id}; GET …/logs/explorer/datasets/available lists its fields`, pointer: `${pointer}/name` });
      return;
    }
    if (choice.has(name)) {
      problems.push({ message: `field "${entry.name.slice(0, 80)}" is named twice`, pointer: `${pointer}/name` });
      return;
    }
    choice.set(name, entry.enabled);
  });
  // A field the body leaves out is enabled, as it is when the body has no `fields` at all.
  const kept = dataset.fields.filter((f) => choice.get(f.name) !== false).map((f) => f.name);
  if (kept.length === 0) problems.push({ message: 'a dataset must keep at least one field', pointer: '/fields' });
  return kept.length === dataset.fields.length ? null : kept;
}

function filterOf(value: unknown, dataset: Dataset, limits: FilterLimits, problems: ErrorDetail[]): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (typeof value !== 'string') {
    problems.push({ message: 'filter must be a string holding the filter JSON, such as "{\\"where\\":{\\"key\\":\\"EdgeResponseStatus\\",\\"operator\\":\\"geq\\",\\"value\\":500}}"', pointer: '/filter' });
    return undefined;
  }
  const parsed = parseFilter(value, dataset, limits);
  if (!parsed.ok) {
    problems.push({ message: parsed.error.pointer === '' ? parsed.error.message : `filter ${parsed.error.message}`, pointer: '/filter' });
    return undefined;
  }
  return parsed.value === null ? null : value;
}

function booleanOf(body: Body, key: string, problems: ErrorDetail[]): boolean | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') problems.push({ message: `${key} must be true or false`, pointer: `/${key}` });
  return typeof value === 'boolean' ? value : undefined;
}

/** The dataset named by a create body, or a problem naming the served ones. */
export function explorerDatasetType(value: unknown): Result<Dataset, ErrorDetail> {
  const dataset = typeof value === 'string' ? findDataset(value) : undefined;
  if (dataset === undefined) {
    const named = typeof value === 'string' ? `"${value.slice(0, 80)}" is not a dataset logexport serves` : 'dataset is required';
    return err({ message: `${named}; Log Explorer datasets: ${datasetIds.join(', ')}`, pointer: '/dataset' });
  }
  return ok(dataset);
}

/** Parses a create body (`dataset` required; `fields` default to all, `enabled` to true, protection to false). */
export function parseExplorerDatasetCreate(body: Body, limits: FilterLimits): Result<Required<ExplorerDatasetChanges>, ErrorDetail[]> {
  const problems = unknownKeys(body, createKeys);
  const type = explorerDatasetType(body.dataset);
  if (!type.ok) return err([...problems, type.error]);
  const fields = fieldsOf(body.fields, type.value, problems);
  const filter = filterOf(body.filter, type.value, limits, problems);
  const enabled = booleanOf(body, 'enabled', problems);
  const deletionProtection = booleanOf(body, 'deletion_protection', problems);
  booleanOf(body, 'filter_attack_traffic', problems);
  if (problems.length > 0 || fields === undefined) return err(problems);
  return ok({ dataset: type.value.id, enabled: enabled ?? true, fields, filter: filter ?? null, deletionProtection: deletionProtection ?? false });
}

/**
 * Parses an update body: `enabled` is required (as the official client's type says); `fields` absent means
 * all fields; `filter` absent leaves it, `""` or null clears it.
 */
export function parseExplorerDatasetUpdate(body: Body, dataset: Dataset, limits: FilterLimits): Result<ExplorerDatasetChanges, ErrorDetail[]> {
  const problems = unknownKeys(body, updateKeys);
  const enabled = booleanOf(body, 'enabled', problems);
  if (body.enabled === undefined) problems.push({ message: 'enabled is required (true or false)', pointer: '/enabled' });
  const fields = fieldsOf(body.fields, dataset, problems);
  const filter = filterOf(body.filter, dataset, limits, problems);
  const deletionProtection = booleanOf(body, 'deletion_protection', problems);
  booleanOf(body, 'filter_attack_traffic', problems);
  if (problems.length > 0 || fields === undefined) return err(problems);
  return ok({
    ...(enabled === undefined ? {} : { enabled }),
    fields,
    ...(filter === undefined ? {} : { filter }),
    ...(deletionProtection === undefined ? {} : { deletionProtection }),
  });
}

/** A dataset as the API answers it (`fields` left out of list answers, as the public product does). */
export function explorerDatasetAnswer(dataset: ExplorerDataset, withFields: boolean): Record<string, unknown> {
  const catalogue = findDataset(dataset.dataset);
  const kept = dataset.fields === null ? undefined : new Set(dataset.fields);
  return {
    dataset_id: dataset.id,
    dataset: dataset.dataset,
    enabled: dataset.enabled,
    object_type: 'zone',
    object_id: dataset.zoneId,
    created_at: dataset.createdAt,
    updated_at: dataset.updatedAt,
    deletion_protection: dataset.deletionProtection,
    ...(withFields ? { fields: (catalogue?.fields ?? []).map((f) => ({ name: f.name.toLowerCase(), enabled: kept === undefined || kept.has(f.name) })) } : {}),
    ...(dataset.filter === null ? {} : { filter: dataset.filter }),
  };
}
