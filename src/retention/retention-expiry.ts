/**
 * Removes retained events once they are older than the retention: whole hour partitions, as soon as the
 * end of the hour is past the retention window. Any node may run it at any time (removing a partition
 * twice is harmless). The clock is injected, so tests age segments without waiting.
 */
import { hourPartitionStart, type SegmentStore } from './segment-store.ts';

const hourMs = 3_600_000;

/** Removes every hour partition that ended before `nowMs - retentionMs`; answers how many went. */
export async function expireSegments(segments: SegmentStore, nowMs: number, retentionMs: number): Promise<number> {
  const cutoff = nowMs - retentionMs;
  let removed = 0;
  for (const zone of await segments.listPartitions('')) {
    if (!/^[0-9a-f]{32}$/.test(zone)) continue;
    for (const day of await segments.listPartitions(`${zone}/`)) {
      for (const hour of await segments.listPartitions(`${zone}/${day}/`)) {
        const start = hourPartitionStart(`${day}/${hour}`);
        if (start === undefined || start + hourMs > cutoff) continue;
        await segments.deletePrefix(`${zone}/${day}/${hour}/`);
        removed += 1;
      }
    }
  }
  return removed;
}
