/**
 * Removes retained events once they are older than the retention: whole hour partitions — hot and
 * compacted segments alike — as soon as the end of the hour is past the retention window, and quarantined
 * segments of such hours. Any node may run it at any time (removing a partition twice is harmless). The
 * clock is injected, so tests age segments without waiting.
 */
import { hourPartitionStart, type SegmentStore } from './segment-store.ts';

const hourMs = 3_600_000;

/** Removes every hour partition that ended before `nowMs - retentionMs`; answers how many went. */
export async function expireSegments(segments: SegmentStore, nowMs: number, retentionMs: number, onRemoved: (prefix: string) => void = () => {}): Promise<number> {
  const cutoff = nowMs - retentionMs;
  let removed = 0;
  for (const zone of await segments.listPartitions('')) {
    if (!/^[0-9a-f]{32}$/.test(zone)) continue;
    for (const day of await segments.listPartitions(`${zone}/`)) {
      if (day === 'quarantine') {
        // `<YYYYMMDD>-<HH>-<name>`: the hour partition the segment came from.
        const expired = (await segments.list(`${zone}/quarantine/`)).filter((e) => {
          const match = /\/(\d{8})-(\d{2})-[^/]+$/.exec(e.key);
          const start = match === null ? undefined : hourPartitionStart(`${match[1]}/${match[2]}`);
          return start !== undefined && start + hourMs <= cutoff;
        });
        if (expired.length > 0) await segments.delete(expired.map((e) => e.key));
        continue;
      }
      for (const hour of await segments.listPartitions(`${zone}/${day}/`)) {
        const start = hourPartitionStart(`${day}/${hour}`);
        if (start === undefined || start + hourMs > cutoff) continue;
        const prefix = `${zone}/${day}/${hour}/`;
        await segments.deletePrefix(prefix);
        onRemoved(prefix);
        removed += 1;
      }
    }
  }
  return removed;
}
