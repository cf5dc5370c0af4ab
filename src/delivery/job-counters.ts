/**
 * Per-job counters: every record a runner receives ends in exactly one of delivered, filtered out,
 * sampled out or dropped (with a reason), and every delivery attempt is counted. Counters are in memory
 * on the hot path and written to the store every few seconds, one row per node, so the API can sum them.
 */

/** The counters of one job (on one node, or summed over nodes). */
export interface JobCounterValues {
  received: number;
  filtered_out: number;
  sampled_out: number;
  delivered_records: number;
  delivered_bytes: number;
  batches: number;
  retries: number;
  failures: number;
  dropped: Record<string, number>;
}

/** Delivered records per minute: `at` is the minute as RFC 3339. */
export interface SeriesPoint {
  readonly at: string;
  readonly delivered_records: number;
}

/** What a node stores for a job. */
export interface StoredCounters {
  readonly counters: JobCounterValues;
  readonly series: readonly SeriesPoint[];
  /** The queue range of the last batch these counters include; a batch re-sent after a restart is not counted again. */
  readonly counted_range?: string;
}

/** What happened to the records of one batch's queue range before delivery; counted when the batch is done. */
export interface BatchTally {
  received: number;
  filtered_out: number;
  sampled_out: number;
  dropped: Record<string, number>;
}

export function emptyTally(): BatchTally {
  return { received: 0, filtered_out: 0, sampled_out: 0, dropped: {} };
}

/** Adds `b` into `a`. */
function addTally(a: BatchTally, b: BatchTally): BatchTally {
  a.received += b.received;
  a.filtered_out += b.filtered_out;
  a.sampled_out += b.sampled_out;
  for (const [reason, n] of Object.entries(b.dropped)) tallyDrop(a, reason, n);
  return a;
}

/** Adds `n` records dropped for `reason` to a tally. */
export function tallyDrop(tally: BatchTally, reason: string, n: number): void {
  if (n > 0) tally.dropped[reason] = (tally.dropped[reason] ?? 0) + n;
}

export const seriesMinutes = 60;

export function emptyCounterValues(): JobCounterValues {
  return { received: 0, filtered_out: 0, sampled_out: 0, delivered_records: 0, delivered_bytes: 0, batches: 0, retries: 0, failures: 0, dropped: {} };
}

const numericKeys = ['received', 'filtered_out', 'sampled_out', 'delivered_records', 'delivered_bytes', 'batches', 'retries', 'failures'] as const;

/** Adds `b` into `a`. */
export function addCounterValues(a: JobCounterValues, b: JobCounterValues): JobCounterValues {
  for (const key of numericKeys) a[key] += b[key];
  for (const [reason, n] of Object.entries(b.dropped)) a.dropped[reason] = (a.dropped[reason] ?? 0) + n;
  return a;
}

function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000) * 60_000;
}

/** Merges series by minute and keeps the last `seriesMinutes` minutes before `nowMs`, oldest first. */
export function mergeSeries(lists: readonly (readonly SeriesPoint[])[], nowMs: number): SeriesPoint[] {
  const byMinute = new Map<number, number>();
  const oldest = minuteOf(nowMs) - (seriesMinutes - 1) * 60_000;
  for (const list of lists) {
    for (const point of list) {
      const at = Date.parse(point.at);
      if (Number.isNaN(at) || at < oldest) continue;
      byMinute.set(at, (byMinute.get(at) ?? 0) + point.delivered_records);
    }
  }
  return [...byMinute.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([at, n]) => ({ at: new Date(at).toISOString(), delivered_records: n }));
}

/** The live counters of one job on this node. */
export class JobCounters {
  readonly values: JobCounterValues;
  private readonly perMinute = new Map<number, number>();
  /** Set when values changed since the last write to the store. */
  dirty = false;
  /** The range of the last batch counted (see StoredCounters). */
  countedRange: string | undefined;
  /**
   * Tallies of the batches being read or delivered (retried, perhaps). Their records are shown as received
   * but never stored: after a restart those batches are read, and counted, again.
   */
  private readonly open = new Map<BatchTally, object>();

  constructor(initial?: StoredCounters) {
    this.values = initial === undefined ? emptyCounterValues() : addCounterValues(emptyCounterValues(), initial.counters);
    this.countedRange = initial?.counted_range;
    for (const point of initial?.series ?? []) this.perMinute.set(Date.parse(point.at), point.delivered_records);
  }

  count(key: (typeof numericKeys)[number], n = 1): void {
    this.values[key] += n;
    this.dirty = true;
  }

  drop(reason: string, n = 1): void {
    this.values.dropped[reason] = (this.values.dropped[reason] ?? 0) + n;
    this.dirty = true;
  }

  delivered(records: number, bytes: number, nowMs: number): void {
    this.values.delivered_records += records;
    this.values.delivered_bytes += bytes;
    this.values.batches += 1;
    const minute = minuteOf(nowMs);
    this.perMinute.set(minute, (this.perMinute.get(minute) ?? 0) + records);
    this.dirty = true;
  }

  /**
   * A tally for a batch `owner` (a runner) reads: what it holds counts as received (but is not stored)
   * until it is settled or released.
   */
  openTally(owner: object): BatchTally {
    const tally = emptyTally();
    this.open.set(tally, owner);
    return tally;
  }

  /** Stops showing a tally that will not be settled (its batch was counted before a restart). */
  release(tally: BatchTally): void {
    this.open.delete(tally);
  }

  /** Stops showing the tallies of `owner`, a runner that stopped: their batches stay queued and are counted by whoever delivers them. */
  releaseAll(owner: object): void {
    for (const [tally, by] of this.open) if (by === owner) this.open.delete(tally);
  }

  /** What the open tallies hold together. */
  pending(): BatchTally {
    const sum = emptyTally();
    for (const tally of this.open.keys()) addTally(sum, tally);
    return sum;
  }

  /** Counts a finished batch's tally, remembering its range so a re-send of it is not counted twice. */
  settle(tally: BatchTally, rangeId: string): void {
    this.open.delete(tally);
    this.values.received += tally.received;
    this.values.filtered_out += tally.filtered_out;
    this.values.sampled_out += tally.sampled_out;
    for (const [reason, n] of Object.entries(tally.dropped)) this.drop(reason, n);
    this.countedRange = rangeId;
    this.dirty = true;
  }

  /** A copy for storing or answering, with the series trimmed to the last hour. */
  snapshot(nowMs: number): StoredCounters {
    const oldest = minuteOf(nowMs) - (seriesMinutes - 1) * 60_000;
    for (const minute of this.perMinute.keys()) if (minute < oldest) this.perMinute.delete(minute);
    return {
      counters: addCounterValues(emptyCounterValues(), this.values),
      series: [...this.perMinute.entries()].sort((a, b) => a[0] - b[0]).map(([at, n]) => ({ at: new Date(at).toISOString(), delivered_records: n })),
      ...(this.countedRange === undefined ? {} : { counted_range: this.countedRange }),
    };
  }
}
