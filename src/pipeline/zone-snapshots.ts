/**
 * What ingest needs to know about a zone, compiled once per configuration change: the custom-field
 * capture plan (from the zone's `http_log_custom_fields` entry point) and which datasets have an enabled
 * job (events of a dataset without one are acknowledged and counted as dropped, `no_job`).
 */
import type { RuleInput } from '../domain/rulesets/custom-fields.ts';
import { customFieldsPhase } from '../domain/rulesets/phase.ts';
import type { Store } from '../store/store.ts';
import { compileCapturePlan, type CapturePlan } from './capture.ts';

/** One zone's ingest view. */
export interface ZoneSnapshot {
  readonly capturePlan: CapturePlan;
  readonly enabledDatasets: ReadonlySet<string>;
}

export class ZoneSnapshots {
  private readonly store: Store;
  private readonly cache = new Map<string, Promise<ZoneSnapshot>>();

  constructor(store: Store) {
    this.store = store;
  }

  /** The zone's current snapshot, loaded on first use after a change. */
  get(zoneId: string): Promise<ZoneSnapshot> {
    let snapshot = this.cache.get(zoneId);
    if (snapshot === undefined) {
      snapshot = this.load(zoneId);
      this.cache.set(zoneId, snapshot);
      // A failed load is not kept: the next request tries again.
      snapshot.catch(() => this.cache.delete(zoneId));
    }
    return snapshot;
  }

  /** Forgets a zone's snapshot after its configuration changed. */
  invalidate(zoneId: string): void {
    this.cache.delete(zoneId);
  }

  private async load(zoneId: string): Promise<ZoneSnapshot> {
    const [ruleset, jobs] = await Promise.all([this.store.findRulesetByPhase(zoneId, customFieldsPhase), this.store.listJobs(zoneId)]);
    const rules = (ruleset?.rules ?? []).filter((r) => r.action === 'log_custom_field');
    return {
      capturePlan: compileCapturePlan(rules as unknown as readonly Pick<RuleInput, 'enabled' | 'action_parameters'>[]),
      enabledDatasets: new Set(jobs.filter((j) => j.enabled).map((j) => j.dataset)),
    };
  }
}
