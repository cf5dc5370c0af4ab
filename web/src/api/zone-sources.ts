/**
 * `GET …/logexport/sources`: how a zone's events come in, as the node answering counted them — the zone's
 * own ingest figures, in total and per way in — and, node-wide, the status of each tailed file. The page
 * shows every figure it finds, so figures a newer server adds appear without a change here.
 */
import type { ApiClient, ApiResult } from './api-client.ts';

/** What one way in (or all of them together) did for the zone. */
export interface IngestFigures {
  readonly requests?: number;
  readonly rejected_requests?: number;
  readonly accepted_events?: number;
  /** Events acknowledged but not queued, by reason (`no_job`: no enabled job exports the zone's events). */
  readonly dropped?: Readonly<Record<string, number>>;
  /** Events refused one by one while the rest of their request was taken, by reason. */
  readonly rejected_events?: Readonly<Record<string, number>>;
  /** When an event last came in, RFC 3339. */
  readonly last_event_at?: string | null;
  readonly [figure: string]: unknown;
}

/** The zone's figures: totals, and the same per way in (`http`, `otlp`, `tail`) when the server splits them. */
export interface ZoneIngestFigures extends IngestFigures {
  readonly way_in?: Readonly<Record<string, IngestFigures>>;
}

/** A tailed file's status as a zone's user sees it (its error text stays with the operator). */
export interface TailedFile {
  readonly source: string;
  readonly format: string;
  readonly path: string;
  readonly lines_read: number;
  readonly lines_accepted: number;
  readonly lines_rejected: number;
  readonly lines_unknown_host: number;
  readonly bytes_behind: number | null;
  readonly paused: boolean;
  readonly last_error_at: string | null;
  readonly last_line_at?: string | null;
  readonly rotations?: number;
  readonly [figure: string]: unknown;
}

/** The route's answer; `ingest` is null before the zone's first event on this node. */
export interface ZoneSources {
  readonly zone_id: string;
  readonly ingest: ZoneIngestFigures | null;
  readonly tailed_files: readonly TailedFile[];
}

/** Reads a zone's sources. */
export function getZoneSources(api: ApiClient, zoneId: string): Promise<ApiResult<ZoneSources>> {
  return api.get<ZoneSources>(`/zones/${zoneId}/logexport/sources`);
}
