/**
 * A zone's retained files for a window of receive times, across both tiers: the one place that decides
 * which files hold which events, so Logpull, replay, SQL (Log Explorer) and the compaction agree. Only the
 * hour partitions that exist are listed (a window of years visits what is there, not every hour in it), a
 * file whose times lie outside the window is skipped by its name, and a hot segment that a compacted one
 * already holds (its compaction had not removed it yet) is left out, so every event is read exactly once.
 */
import type { Dataset } from '../domain/datasets/http-requests.ts';
import { baseNameOf, compactedKeyOfCovers, compactedSuffix, coversSuffix, parseSegmentKey, type SegmentName } from './segment-names.ts';
import { retainedColumns, retainedTableSql, type RetainedColumn } from './segment-schema.ts';
import { hourPartitionStart, type OpenedSegment, type SegmentStore } from './segment-store.ts';
import fs from 'node:fs/promises';
import { boundedMap } from '../core/bounded-map.ts';

const hourMs = 3_600_000;
/** Listings of a store made at once (a bucket's LIST requests, or a directory's). */
const listingsAtOnce = 8;
const dayMs = 86_400_000;

/** A window of receive times in Unix milliseconds: `startMs` inclusive, `endMs` exclusive. */
export interface MsWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/** The segments holding a window's events: each event in exactly one of them. */
export interface RetainedSegments {
  readonly compacted: readonly SegmentName[];
  readonly hot: readonly SegmentName[];
}

/** The hour partitions (`YYYYMMDD/HH`) of the zone that exist and overlap the window, oldest first. */
export async function partitionsOfWindow(segments: SegmentStore, zoneId: string, window: MsWindow): Promise<readonly string[]> {
  if (window.endMs <= window.startMs) return [];
  const days = (await segments.listPartitions(`${zoneId}/`)).filter((day) => {
    const dayStart = hourPartitionStart(`${day}/00`);
    return dayStart !== undefined && dayStart < window.endMs && dayStart + dayMs > window.startMs;
  });
  // The days' hours are listed side by side.
  const hours = await boundedMap(days, listingsAtOnce, async (day) => (await segments.listPartitions(`${zoneId}/${day}/`)).map((hour) => `${day}/${hour}`));
  return hours
    .flat()
    .filter((partition) => {
      const start = hourPartitionStart(partition);
      return start !== undefined && start < window.endMs && start + hourMs > window.startMs;
    })
    .sort();
}

/** Reads a covers list: the names of the hot segments a compacted one holds. */
async function coveredNames(segments: SegmentStore, coversKey: string): Promise<readonly string[]> {
  let opened: OpenedSegment | undefined;
  try {
    opened = await segments.open(coversKey);
    const parsed = JSON.parse(await fs.readFile(opened.path, 'utf8')) as { hot?: unknown };
    return Array.isArray(parsed.hot) ? parsed.hot.filter((n): n is string => typeof n === 'string') : [];
  } catch (error) {
    // Removed meanwhile (an expiry): it covers nothing any more.
    if ((error as { code?: unknown }).code === 'ENOENT' || (error as { name?: unknown }).name === 'NoSuchKey') return [];
    throw error;
  } finally {
    await opened?.release();
  }
}

/**
 * The segments among a partition's files: every compacted one, and each hot one that no compacted one
 * holds. A covers list is read only when both tiers are there (while a compaction finishes, or after a
 * crash in the middle of one), and counts only when its compacted segment exists.
 */
export async function liveSegmentsOf(segments: SegmentStore, keys: readonly string[]): Promise<{ readonly live: readonly SegmentName[]; readonly covered: readonly SegmentName[] }> {
  const named = keys.flatMap((key) => parseSegmentKey(key) ?? []);
  const hot = named.filter((s) => s.tier === 'hot');
  const compacted = named.filter((s) => s.tier === 'compacted');
  if (hot.length === 0 || compacted.length === 0) return { live: named, covered: [] };
  const compactedKeys = new Set(compacted.map((c) => c.key));
  const covered = new Set<string>();
  for (const key of keys) {
    if (!key.endsWith(coversSuffix) || !compactedKeys.has(compactedKeyOfCovers(key))) continue;
    for (const name of await coveredNames(segments, key)) covered.add(name);
  }
  return {
    live: [...compacted, ...hot.filter((h) => !covered.has(baseNameOf(h.key)))],
    covered: hot.filter((h) => covered.has(baseNameOf(h.key))),
  };
}

/** Whether a compacted segment of the hot segment's partition holds it (its covers list names it). */
export async function isCompacted(segments: SegmentStore, hotKey: string): Promise<boolean> {
  const keys = await segments.listKeys(hotKey.slice(0, hotKey.lastIndexOf('/') + 1));
  const compacted = new Set(keys.filter((key) => key.endsWith(compactedSuffix)));
  for (const key of keys) {
    if (!key.endsWith(coversSuffix) || !compacted.has(compactedKeyOfCovers(key))) continue;
    if ((await coveredNames(segments, key)).includes(baseNameOf(hotKey))) return true;
  }
  return false;
}

/** A zone's segments that may hold events received in the window, across both tiers. */
export async function segmentsOfWindow(segments: SegmentStore, zoneId: string, window: MsWindow): Promise<RetainedSegments> {
  const compacted: SegmentName[] = [];
  const hot: SegmentName[] = [];
  // The partitions are listed side by side, and taken in order.
  const partitions = await boundedMap(await partitionsOfWindow(segments, zoneId, window), listingsAtOnce, async (partition) => liveSegmentsOf(segments, await segments.listKeys(`${zoneId}/${partition}/`)));
  for (const { live } of partitions) {
    for (const segment of live) {
      if (segment.lastMs < window.startMs || segment.firstMs >= window.endMs) continue;
      (segment.tier === 'hot' ? hot : compacted).push(segment);
    }
  }
  return { compacted, hot };
}

/** A window's segments as local files, and the DuckDB table over them; release when done. */
export interface OpenedRetained {
  /** A table expression (one tier's reader, or `(SELECT … UNION ALL BY NAME …)` of both) with the columns of `retainedColumns`, or undefined when no file may hold an event of the window. */
  readonly table: string | undefined;
  readonly columns: readonly RetainedColumn[];
  /** The local compacted (Parquet) files the table reads. */
  readonly compacted: readonly string[];
  /** The key of each local hot file, so a reader can name the segment DuckDB refused. */
  readonly hotKeys: ReadonlyMap<string, string>;
  release(): Promise<void>;
}

/**
 * The files of a zone's retained events received in the window, opened (downloaded from a bucket) for
 * DuckDB, with the SQL of one table over both tiers. What Log Explorer's SQL, Logpull and replay read.
 */
export async function openRetained(segments: SegmentStore, zoneId: string, window: MsWindow, dataset: Dataset): Promise<OpenedRetained> {
  const found = await segmentsOfWindow(segments, zoneId, window);
  const opened: OpenedSegment[] = [];
  const release = async (): Promise<void> => {
    for (const segment of opened.splice(0)) await segment.release();
  };
  try {
    const compactedPaths: string[] = [];
    const hotKeys = new Map<string, string>();
    for (const segment of found.compacted) {
      const file = await segments.open(segment.key);
      opened.push(file);
      compactedPaths.push(file.path);
    }
    for (const segment of found.hot) {
      const file = await segments.open(segment.key);
      opened.push(file);
      hotKeys.set(file.path, segment.key);
    }
    return { table: retainedTableSql(compactedPaths, [...hotKeys.keys()], dataset), columns: retainedColumns(dataset), compacted: compactedPaths, hotKeys, release };
  } catch (error) {
    await release();
    throw error;
  }
}

/** The covers list a compaction writes beside its segment. */
export function coversText(hot: readonly SegmentName[]): string {
  return JSON.stringify({ hot: hot.map((h) => baseNameOf(h.key)).sort() });
}
