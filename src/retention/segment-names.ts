/**
 * The names of a zone's retained files, and what a name says. Every file of an hour partition
 * `<zone>/<YYYYMMDD>/<HH>/` is named `<first receive ms>-<last receive ms>-<12 hex>` plus a suffix:
 * - `.ndjson.zst` — a **hot** segment: the retained copies of a queue range, zstd frames laid end to end,
 *   the hex a digest of the range (written again after a crash, it gets the same name);
 * - `.parquet` — a **compacted** segment: hot segments turned into Parquet, the hex a digest of their names;
 * - `.covers.json` — beside a compacted segment: the names of the hot segments it holds, so that a reader
 *   who still finds one of them (the compaction had not removed it yet) leaves it out.
 * A reader skips a file whose times lie outside its window by its name alone. Pure.
 */
import { createHash } from 'node:crypto';
import { hourPartitionOf } from './segment-store.ts';

export const hotSuffix = '.ndjson.zst';
export const compactedSuffix = '.parquet';
export const coversSuffix = '.covers.json';

/** The tier of a segment: as ingest compressed it, or columnar. */
export type SegmentTier = 'hot' | 'compacted';

/** What a segment's key says. */
export interface SegmentName {
  readonly key: string;
  readonly tier: SegmentTier;
  readonly firstMs: number;
  readonly lastMs: number;
}

const namePattern = /\/(\d+)-(\d+)-[0-9a-f]{12}(\.ndjson\.zst|\.parquet)$/;

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** The key of the hot segment of a queue range (`rangeId`) whose events were received from `firstMs` to `lastMs`. */
export function hotSegmentKey(zoneId: string, rangeId: string, firstMs: number, lastMs: number): string {
  return `${zoneId}/${hourPartitionOf(firstMs)}/${firstMs}-${lastMs}-${digestOf(`${zoneId}\u0000${rangeId}`)}${hotSuffix}`;
}

/** The key of the compacted segment holding the given hot segments (of one hour partition). */
export function compactedSegmentKey(hot: readonly SegmentName[]): string {
  const keys = hot.map((h) => h.key).sort();
  const first = Math.min(...hot.map((h) => h.firstMs));
  const last = Math.max(...hot.map((h) => h.lastMs));
  const partition = (keys[0] ?? '').slice(0, (keys[0] ?? '').lastIndexOf('/'));
  return `${partition}/${first}-${last}-${digestOf(keys.join('\n'))}${compactedSuffix}`;
}

/** The key of the list of hot segments a compacted segment holds. */
export function coversKeyOf(compactedKey: string): string {
  return compactedKey.slice(0, -compactedSuffix.length) + coversSuffix;
}

/** The compacted segment a covers list belongs to. */
export function compactedKeyOfCovers(coversKey: string): string {
  return coversKey.slice(0, -coversSuffix.length) + compactedSuffix;
}

/** What a key names, or undefined when it is no segment (a covers list, something else). */
export function parseSegmentKey(key: string): SegmentName | undefined {
  const match = namePattern.exec(key);
  if (match === null) return undefined;
  return { key, tier: match[3] === hotSuffix ? 'hot' : 'compacted', firstMs: Number(match[1]), lastMs: Number(match[2]) };
}

/** The last part of a key (the name within its partition). */
export function baseNameOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}
