/**
 * What `logexport sources` says of retained logs, read from the segment store itself (so it answers for a
 * running node as well as a stopped one): per zone, the hot segments waiting for compaction and the
 * segments quarantined because they could not be read.
 */
import type { AppConfig } from '../config/config.ts';
import { openSegmentStore } from './open-segment-store.ts';
import { parseSegmentKey } from './segment-names.ts';

/** One zone's retained files as `logexport sources` prints them. */
export interface StoredRetentionStatus {
  readonly zone_id: string;
  readonly hot_segments: number;
  readonly hot_bytes: number;
  readonly compacted_segments: number;
  /** Keys of the quarantined segments (under `<zone>/quarantine/`). */
  readonly quarantined: readonly string[];
}

export async function readRetentionStatus(config: Pick<AppConfig, 'retentionStorage' | 'dataDir'>): Promise<readonly StoredRetentionStatus[]> {
  const { store } = openSegmentStore(config.retentionStorage, config.dataDir);
  try {
    const zones: StoredRetentionStatus[] = [];
    for (const zone of await store.listPartitions('')) {
      if (!/^[0-9a-f]{32}$/.test(zone)) continue;
      let hotSegments = 0;
      let hotBytes = 0;
      let compacted = 0;
      const quarantined: string[] = [];
      for (const entry of await store.list(`${zone}/`)) {
        if (entry.key.startsWith(`${zone}/quarantine/`)) {
          quarantined.push(entry.key);
          continue;
        }
        const name = parseSegmentKey(entry.key);
        if (name?.tier === 'hot') {
          hotSegments += 1;
          hotBytes += entry.bytes;
        } else if (name?.tier === 'compacted') compacted += 1;
      }
      zones.push({ zone_id: zone, hot_segments: hotSegments, hot_bytes: hotBytes, compacted_segments: compacted, quarantined });
    }
    return zones;
  } finally {
    await store.close();
  }
}
