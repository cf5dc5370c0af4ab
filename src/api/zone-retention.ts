/**
 * Whether a zone retains its events: its retention flag is on, or it has an enabled `http_requests` Log
 * Explorer dataset (docs/retention.md says how the two combine). The routes that change either ask it
 * before and after, so the zone's retention consumer is created when retention starts and removed only
 * when nothing keeps the zone's events any more.
 */
import { httpRequests } from '../domain/datasets/http-requests.ts';
import type { ExplorerDataset } from '../domain/explorer/explorer-dataset.ts';
import type { Store } from '../store/store.ts';

/** Whether a zone with this flag and these datasets retains its events. */
export function retainsWith(flag: boolean, datasets: readonly ExplorerDataset[]): boolean {
  return flag || datasets.some((d) => d.enabled && d.dataset === httpRequests.id);
}

/** Whether the zone retains its events now (as the store says). */
export async function zoneRetains(store: Store, zoneId: string): Promise<boolean> {
  const [flag, datasets] = await Promise.all([store.getRetentionFlag(zoneId), store.listExplorerDatasets(zoneId)]);
  return retainsWith(flag, datasets);
}
