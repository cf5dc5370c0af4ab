/**
 * Where retained segments live, behind one interface: a directory of the data directory (one node), or
 * an S3-compatible bucket (several nodes: each writes the segments of what it consumed, any reads them).
 * Keys are `<zone id>/<YYYYMMDD>/<HH>/<name>` (segment-names.ts says which names), so a time window and an
 * expiry touch only the hour partitions they need; `<zone id>/quarantine/` keeps what could not be compacted.
 */

/** A segment opened for reading: a local file, released when the reader is done with it. */
export interface OpenedSegment {
  readonly path: string;
  release(): Promise<void>;
}

/** A stored object: its key and size. */
export interface SegmentEntry {
  readonly key: string;
  readonly bytes: number;
}

/** The storage of retained segments. */
export interface SegmentStore {
  /** Stores the local file under `key`, durably, replacing an object of the same key; the file is consumed. */
  put(key: string, localPath: string): Promise<void>;
  /** The objects directly or indirectly under `prefix` (which ends in `/`), sorted by key. */
  list(prefix: string): Promise<readonly SegmentEntry[]>;
  /** The keys of `list(prefix)` without their sizes, which a directory answers without a look at each file. */
  listKeys(prefix: string): Promise<readonly string[]>;
  /** The names of the partitions directly under `prefix` ('' for the top: the zones), without slashes. */
  listPartitions(prefix: string): Promise<readonly string[]>;
  /** A local file with the segment's bytes, under `zoneDirectory` of the key's zone. */
  open(key: string): Promise<OpenedSegment>;
  /**
   * The local directory (ending in a separator) under which every file `open` gives for the zone's keys
   * lies, and nothing of another zone: what a Log Explorer sandbox of the zone may read.
   */
  zoneDirectory(zoneId: string): string;
  /** Removes the objects (a missing one is no error). */
  delete(keys: readonly string[]): Promise<void>;
  /** Removes everything under `prefix` (ends in `/`). */
  deletePrefix(prefix: string): Promise<void>;
  close(): Promise<void>;
}

/** A zone id as one path component; refuses what could name another directory (`..`, a separator). */
export function zonePathComponent(zoneId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(zoneId)) throw new Error(`not a zone id: ${JSON.stringify(zoneId)}`);
  return zoneId;
}

/** The hour partition of a receive time: `YYYYMMDD/HH`. */
export function hourPartitionOf(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}/${iso.slice(11, 13)}`;
}

/** The start (Unix ms) of an hour partition `YYYYMMDD/HH`, or undefined when it is not one. */
export function hourPartitionStart(partition: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})\/(\d{2})$/.exec(partition);
  if (match === null) return undefined;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]));
  return Number.isNaN(ms) || hourPartitionOf(ms) !== partition ? undefined : ms;
}
