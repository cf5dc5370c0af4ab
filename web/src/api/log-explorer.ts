/**
 * Log Explorer's API (`…/logs/explorer/…`): the zone's datasets (which of its events are kept for SQL),
 * the datasets it could keep with their fields, and SQL over what is kept.
 */
import type { ApiClient, ApiResult } from './api-client.ts';
import type { SqlRow } from '../model/sql-result.ts';

/** A dataset the zone keeps, or kept, for Log Explorer. */
export interface ExplorerDataset {
  readonly dataset_id: string;
  readonly dataset: string;
  readonly enabled: boolean;
  readonly fields: readonly { readonly name: string; readonly enabled: boolean }[];
  readonly filter: string | null;
  readonly object_type: string;
  readonly object_id: string;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A dataset a zone may keep: its name, the field that is its time, and a JSON schema of its fields. */
export interface AvailableDataset {
  readonly dataset: string;
  readonly timestamp_field?: string;
  readonly schema?: { readonly properties?: Readonly<Record<string, unknown>> };
}

/** The answer to a query: its rows, and why fewer came back than matched, when they did. */
export interface SqlAnswer {
  readonly rows: readonly SqlRow[];
  readonly truncated: boolean;
  readonly messages: readonly string[];
}

const base = (zoneId: string) => `/zones/${zoneId}/logs/explorer`;

export function listExplorerDatasets(api: ApiClient, zoneId: string): Promise<ApiResult<ExplorerDataset[]>> {
  return api.get<ExplorerDataset[]>(`${base(zoneId)}/datasets`);
}

export function availableExplorerDatasets(api: ApiClient, zoneId: string): Promise<ApiResult<AvailableDataset[]>> {
  return api.get<AvailableDataset[]>(`${base(zoneId)}/datasets/available`);
}

/** Starts keeping the zone's `http_requests` events: switches its dataset on, or makes one. */
export function enableHttpRequests(api: ApiClient, zoneId: string, existing: ExplorerDataset | undefined): Promise<ApiResult<ExplorerDataset>> {
  return existing === undefined
    ? api.send<ExplorerDataset>('POST', `${base(zoneId)}/datasets`, { dataset: 'http_requests', enabled: true })
    : api.send<ExplorerDataset>('PUT', `${base(zoneId)}/datasets/${existing.dataset_id}`, { enabled: true });
}

/** Runs one SELECT over the zone's kept events. */
export async function runSql(api: ApiClient, zoneId: string, sql: string): Promise<ApiResult<SqlAnswer>> {
  const answer = await api.sendText<SqlRow[] | null>('POST', `${base(zoneId)}/query/sql`, sql);
  if (!answer.ok) return answer;
  const info = answer.resultInfo;
  const truncated = typeof info === 'object' && info !== null && (info as { truncated?: unknown }).truncated === true;
  const rows = Array.isArray(answer.result) ? answer.result : [];
  return { ...answer, result: { rows, truncated, messages: answer.messages } };
}

/** Whether the zone keeps events for SQL: its Logpull retention flag, or an enabled dataset. */
export async function zoneKeepsEvents(api: ApiClient, zoneId: string): Promise<ApiResult<{ readonly keeps: boolean; readonly httpRequests: ExplorerDataset | undefined }>> {
  const [flag, datasets] = await Promise.all([api.get<{ flag: boolean }>(`/zones/${zoneId}/logs/control/retention/flag`), listExplorerDatasets(api, zoneId)]);
  if (!datasets.ok) return datasets;
  if (!flag.ok) return flag;
  const httpRequests = datasets.result.find((d) => d.dataset === 'http_requests');
  return { ...datasets, result: { keeps: flag.result.flag || datasets.result.some((d) => d.enabled), httpRequests } };
}
