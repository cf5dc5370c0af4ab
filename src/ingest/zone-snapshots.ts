/**
 * What ingest needs to know about a zone, loaded once per configuration change: the zone's custom-field
 * rules, its enabled jobs per dataset, its retention flag and its Log Explorer datasets, as the source of the plan ingest runs
 * (ingest-task.ts). Events of a dataset with no enabled job, in a zone that does not retain its events,
 * are acknowledged and counted as dropped (`no_job`).
 */
import { customFieldsPhase } from '../domain/rulesets/phase.ts';
import type { Store } from '../store/store.ts';
import type { IngestSettings, PlanSource } from './ingest-task.ts';

/** One zone and dataset's ingest plan source, with a key that changes whenever the source may have. */
export interface ZoneSnapshot {
  readonly planKey: string;
  readonly plan: PlanSource;
}

export class ZoneSnapshots {
  private readonly store: Store;
  private readonly settings: IngestSettings;
  private readonly cache = new Map<string, Promise<ZoneSnapshot>>();
  private generation = 0;

  constructor(store: Store, settings: IngestSettings) {
    this.store = store;
    this.settings = settings;
  }

  /** The current snapshot of a zone's dataset, loaded on first use after a change. */
  get(zoneId: string, dataset: string): Promise<ZoneSnapshot> {
    const key = `${zoneId}/${dataset}`;
    let snapshot = this.cache.get(key);
    if (snapshot === undefined) {
      snapshot = this.load(zoneId, dataset);
      this.cache.set(key, snapshot);
      // A failed load is not kept: the next request tries again.
      snapshot.catch(() => this.cache.delete(key));
    }
    return snapshot;
  }

  /** Forgets a zone's snapshots after its configuration changed. */
  invalidate(zoneId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${zoneId}/`)) this.cache.delete(key);
  }

  private async load(zoneId: string, dataset: string): Promise<ZoneSnapshot> {
    const generation = ++this.generation;
    const [ruleset, jobs, flag, explorer] = await Promise.all([
      this.store.findRulesetByPhase(zoneId, customFieldsPhase),
      this.store.listJobs(zoneId),
      this.store.getRetentionFlag(zoneId),
      this.store.listExplorerDatasets(zoneId),
    ]);
    // The flag keeps every event whole; without it, an enabled Log Explorer dataset keeps what it selects.
    const selected = flag ? undefined : explorer.find((d) => d.enabled && d.dataset === dataset);
    return {
      planKey: `${zoneId}/${dataset}/${generation}`,
      plan: {
        rules: ruleset?.rules ?? [],
        jobs: jobs.filter((j) => j.enabled && j.dataset === dataset),
        retain: flag || selected !== undefined,
        ...(selected === undefined ? {} : { retainSelection: { fields: selected.fields, filter: selected.filter } }),
        settings: this.settings,
      },
    };
  }
}
