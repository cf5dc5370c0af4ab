/**
 * The ingest part of `logexport sources`: the figures a node keeps in its data directory (events accepted,
 * dropped and rejected per zone and way in), each zone named and with its number of enabled jobs, so a zone
 * whose events are dropped for want of an enabled job is seen at once.
 */
import type { IngestCounters } from '../ingest/ingest-figures.ts';
import { ingestFiguresFile, readStoredIngestFigures } from '../ingest/stored-ingest-figures.ts';
import type { Store, Zone } from '../store/store.ts';

/** One zone's figures as `logexport sources` prints them. */
export type ZoneIngestReport = { readonly zone_id: string; readonly zone: string | null; readonly enabled_jobs: number | null } & IngestCounters;

/** The figures of a data directory; `updated_at` null when the node has written none yet. */
export interface IngestReport {
  readonly updated_at: string | null;
  readonly zones: readonly ZoneIngestReport[];
  /** Events that found no zone (`unknown_host`, OTLP records rejected before routing). */
  readonly no_zone: IngestCounters | null;
}

/** Every zone with its enabled jobs (what the doctor's and the report's notes need). */
export async function zonesWithEnabledJobs(store: Store): Promise<Map<string, { readonly zone: Zone; readonly enabledJobs: number }>> {
  const [zones, enabled] = await Promise.all([store.listAllZones(), store.listEnabledJobs()]);
  const byZone = new Map(zones.map((zone) => [zone.id, { zone, enabledJobs: 0 }]));
  for (const job of enabled) {
    const entry = byZone.get(job.zoneId);
    if (entry !== undefined) entry.enabledJobs += 1;
  }
  return byZone;
}

/** The report of a data directory's figures; zone names and jobs from the store when one is given. */
export async function ingestReport(dataDir: string, store: Store | undefined): Promise<IngestReport> {
  const stored = readStoredIngestFigures(ingestFiguresFile(dataDir));
  if (stored === undefined) return { updated_at: null, zones: [], no_zone: null };
  const zones = store === undefined ? undefined : await zonesWithEnabledJobs(store);
  const reports = Object.entries(stored.zones).map(([zoneId, counters]) => {
    const known = zones?.get(zoneId);
    return { zone_id: zoneId, zone: known?.zone.name ?? null, enabled_jobs: known?.enabledJobs ?? null, ...counters };
  });
  reports.sort((a, b) => (a.zone ?? a.zone_id).localeCompare(b.zone ?? b.zone_id));
  return { updated_at: stored.updated_at, zones: reports, no_zone: stored.unrouted };
}
